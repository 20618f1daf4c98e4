// SPDX-License-Identifier: MIT
import Foundation
import NIOConcurrencyHelpers

/// The last few answers that read a whole long session (its simplified track, its chart), kept while the database
/// is unchanged, so going back to a page or opening it twice costs nothing. "Unchanged" is read from the files as
/// SQLite keeps them: the database header's change counter (bumped by every transaction in rollback-journal mode),
/// the WAL index's header (its change counter and last frame move at every commit in WAL mode), and the files'
/// sizes and times. A cached answer is never stale, at the price of being dropped at every commit of a running
/// recorder.
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

    /// The database's version as its files say it (see the type's comment).
    func stamp() -> String {
        let headers = [(databasePath, 24, 4), (databasePath + "-shm", 0, 48)].map { path, offset, count in
            guard let handle = FileHandle(forReadingAtPath: path) else { return "-" }
            defer { try? handle.close() }
            try? handle.seek(toOffset: UInt64(offset))
            let bytes = (try? handle.read(upToCount: count)) ?? Data()
            return bytes.map { String($0, radix: 16) }.joined(separator: ".")
        }
        let files = [databasePath, databasePath + "-wal"].map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return "-" }
            return "\(info.st_size)@\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return (headers + files).joined(separator: "/")
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
