// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogSystem

/// Reads a session's rows on a second thread while the caller formats them, so an export uses both cores
/// (profiled: a 1M-entry export to GPX spent half its time stepping SQLite and reading columns, half formatting
/// and writing, one after the other).
///
/// Rows travel in batches of `batchSize` through a queue of at most `depth` batches, so memory stays flat. The
/// source is used by one thread at a time: `forEachMark` runs on the caller's thread, and `forEachEntry` returns only
/// after the reading thread has finished with the source (also when `body` throws).
public final class PrefetchingSource: SessionSource, @unchecked Sendable {
    // @unchecked: `base` is touched by one thread at a time, as said above.
    private let base: any SessionSource
    private let batchSize: Int
    private let depth: Int

    /// Wraps `base` (the user's store, a convert's spool): `batchSize` rows a batch, at most `depth` read ahead.
    public init(_ base: any SessionSource, batchSize: Int = 1024, depth: Int = 4) {
        self.base = base
        self.batchSize = batchSize
        self.depth = depth
    }

    /// The marks, read on the caller's thread (GPX reads them before the track, GeoJSON after it).
    public func forEachMark(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void)
        throws
    {
        try base.forEachMark(of: sessionID, from: from, to: to, body)
    }

    /// The wrapped source's, read on the caller's thread.
    public func visits(of sessionID: String) throws -> [Visit] { try base.visits(of: sessionID) }

    /// The wrapped source's, read on the caller's thread.
    public func transitions(of sessionID: String) throws -> [Transition] { try base.transitions(of: sessionID) }

    /// The track points' positions read on a second thread (while GEOS simplifies the last chunk on the caller's).
    public func forEachTrackPosition(
        of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (TrackPosition) throws -> Void
    ) throws {
        try prefetch(body) { [self] in
            try self.base.forEachTrackPosition(of: sessionID, from: from, to: to, $0)
        }
    }

    /// The rows read on a second thread, handed to `body` on the caller's; a failure on either side ends both.
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void
    ) throws {
        try prefetch(body) { [self] in
            try self.base.forEachEntry(of: sessionID, from: from, to: to, fields: fields, $0)
        }
    }

    /// The kept rows, chosen on the reading thread: the others are neither read (by the store) nor handed over.
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields,
        keepingTrackPoints kept: Set<Int64>,
        _ body: (Entry) throws -> Void
    ) throws {
        try prefetch(body) { [self] in
            try self.base.forEachEntry(of: sessionID, from: from, to: to, fields: fields, keepingTrackPoints: kept, $0)
        }
    }

    /// Runs `read` on a second thread and hands what it reads to `body` on this one, in batches.
    private func prefetch<Row: Sendable>(
        _ body: (Row) throws -> Void, read: @escaping @Sendable ((Row) throws -> Void) throws -> Void
    ) throws {
        let queue = BlockingQueue<[Row]>(capacity: depth)
        let done = DispatchSemaphore(value: 0)
        let reader = Thread { [self] in
            defer { done.signal() }
            var batch: [Row] = []
            batch.reserveCapacity(batchSize)
            do {
                try read { e in
                    batch.append(e)
                    if batch.count == batchSize {
                        try queue.put(batch)  // throws CancellationError once the caller has stopped
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { try queue.put(batch) }
                queue.finish()
            } catch {
                queue.finish(throwing: error is CancellationError ? nil : error)
            }
        }
        reader.name = "gpslog export reader"
        reader.start()
        do {
            while let batch = try queue.take() {
                for e in batch { try body(e) }
            }
        } catch {
            queue.cancel()
            done.wait()
            throw error
        }
        done.wait()
    }
}
