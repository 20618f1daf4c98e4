// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import NIOConcurrencyHelpers

/// The last few answers that read a whole long session (its simplified track, its chart), kept while the database
/// is unchanged, so going back to a page or opening it twice costs nothing. "Unchanged" is SQLite's own word for it
/// (`ChangeWatch`: `PRAGMA data_version` on a connection of its own), never read from the files: opening the
/// database's files outside SQLite drops this process's locks on them and lets another process delete the WAL under
/// serve. A cached answer is never stale, at the price of being dropped at every commit of a running recorder.
final class ViewCache: Sendable {
    /// Answers kept at most, the oldest used dropped first.
    static let capacity = 12
    /// Answers larger than this are not kept.
    static let maxBytes = 8 << 20

    private struct Slot {
        var bytes: [UInt8]
        var used: UInt64
    }
    private struct State {
        var stamp: ChangeWatch.Stamp?
        var slots: [String: Slot] = [:]
        var clock: UInt64 = 0
    }
    private let state = NIOLockedValueBox(State())
    /// Nil: nothing says when the store changed (PostgreSQL), so nothing is kept.
    private let changes: ChangeWatch?

    init(databasePath: String) { changes = ChangeWatch(path: databasePath) }

    /// A cache that keeps nothing: every answer is made afresh.
    init() { changes = nil }

    /// The cached answer for `key` as `viewer` sees it, or `make`'s (kept when the database did not change while it
    /// ran). Answers are kept per viewer: one viewer's answer is never another's.
    func answer(for viewer: SessionViewer, _ key: String, _ make: () async throws -> [UInt8]?) async throws
        -> [UInt8]?
    {
        let key = "\(viewer)|" + key
        // Unreadable now: answered afresh, nothing kept.
        guard let changes, let before = changes.stamp() else { return try await make() }
        let cached: [UInt8]? = state.withLockedValue { s in
            guard s.stamp == before, var slot = s.slots[key] else { return nil }
            s.clock += 1
            slot.used = s.clock
            s.slots[key] = slot
            return slot.bytes
        }
        if let cached { return cached }
        guard let bytes = try await make() else { return nil }
        guard bytes.count <= Self.maxBytes, changes.stamp() == before else { return bytes }
        state.withLockedValue { s in
            if s.stamp != before { s = State(stamp: before) }
            s.clock += 1
            s.slots[key] = Slot(bytes: bytes, used: s.clock)
            if s.slots.count > Self.capacity, let oldest = s.slots.min(by: { $0.value.used < $1.value.used })?.key {
                s.slots[oldest] = nil
            }
        }
        return bytes
    }
}
