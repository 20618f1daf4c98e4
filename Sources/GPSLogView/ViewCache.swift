// SPDX-License-Identifier: MIT
import Foundation
import NIOConcurrencyHelpers

/// The last few answers that read a whole long session (its simplified track, its chart), kept while the database
/// is unchanged, so going back to a page or opening it twice costs nothing. "Unchanged" is the database file's and
/// its WAL's size and modification time: any commit anywhere changes one of them, so a cached answer is never
/// stale, at the price of being dropped at every commit of a running recorder.
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
        var stamp = ""
        var slots: [String: Slot] = [:]
        var clock: UInt64 = 0
    }
    private let state = NIOLockedValueBox(State())
    let databasePath: String

    init(databasePath: String) { self.databasePath = databasePath }

    /// The database's version as the file system sees it.
    func stamp() -> String {
        [databasePath, databasePath + "-wal"].map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return "-" }
            return "\(info.st_size)@\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }.joined(separator: "/")
    }

    /// The cached answer for `key`, or `make`'s (kept when the database did not change while it ran).
    func answer(_ key: String, _ make: () async throws -> [UInt8]?) async throws -> [UInt8]? {
        let before = stamp()
        let cached: [UInt8]? = state.withLockedValue { s in
            guard s.stamp == before, var slot = s.slots[key] else { return nil }
            s.clock += 1
            slot.used = s.clock
            s.slots[key] = slot
            return slot.bytes
        }
        if let cached { return cached }
        guard let bytes = try await make() else { return nil }
        guard bytes.count <= Self.maxBytes, stamp() == before else { return bytes }
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
