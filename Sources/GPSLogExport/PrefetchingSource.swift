// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore

/// Reads a session's rows on a second thread while the caller formats them, so an export uses both cores
/// (profiled: a 1M-entry export to GPX spent half its time stepping SQLite and reading columns, half formatting
/// and writing, one after the other).
///
/// Rows travel in batches of `batchSize` through a queue of at most `depth` batches, so memory stays flat. The
/// source is used by one thread at a time: `marks` runs on the caller's thread, and `forEachEntry` returns only
/// after the reading thread has finished with the source (also when `body` throws).
public final class PrefetchingSource: SessionSource, @unchecked Sendable {
    // @unchecked: `base` is touched by one thread at a time, as said above.
    private let base: any SessionSource
    private let batchSize: Int
    private let depth: Int

    public init(_ base: any SessionSource, batchSize: Int = 1024, depth: Int = 4) {
        self.base = base
        self.batchSize = batchSize
        self.depth = depth
    }

    public func marks(of sessionID: String) throws -> [Entry] { try base.marks(of: sessionID) }

    public func forEachEntry(of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void) throws {
        let channel = BatchChannel<Entry>(depth: depth)
        let done = DispatchSemaphore(value: 0)
        let reader = Thread { [self] in
            defer { done.signal() }
            var batch: [Entry] = []
            batch.reserveCapacity(batchSize)
            do {
                try self.base.forEachEntry(of: sessionID, from: from, to: to, fields: fields) { e in
                    batch.append(e)
                    if batch.count == batchSize {
                        guard channel.send(batch) else { throw CancellationError() }
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { _ = channel.send(batch) }
                channel.finish(nil)
            } catch {
                channel.finish(error is CancellationError ? nil : error)
            }
        }
        reader.name = "gpslog export reader"
        reader.start()
        do {
            while let batch = try channel.receive() {
                for e in batch { try body(e) }
            }
        } catch {
            channel.cancel()
            done.wait()
            throw error
        }
        done.wait()
    }
}

/// A bounded, blocking hand-over of batches from one producer thread to one consumer thread.
///
/// Written by hand: the Swift packages at hand (AsyncAlgorithms' channels, NIO's async sequences) hand over
/// between async tasks, and both ends here are plain threads running synchronous, blocking code (SQLite, write(2)).
final class BatchChannel<Element>: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private let depth: Int
    private var queue: [[Element]] = []
    private var finished = false
    private var cancelled = false
    private var failure: Error?

    init(depth: Int) { self.depth = depth }

    /// Queues a batch, waiting while `depth` are queued. False once the consumer has cancelled.
    func send(_ batch: [Element]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= depth && !cancelled { condition.wait() }
        if cancelled { return false }
        queue.append(batch)
        condition.broadcast()
        return true
    }

    /// The producer is done (with its error, if it failed).
    func finish(_ error: Error?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The consumer gives up: the producer's next `send` returns false.
    func cancel() {
        condition.lock()
        cancelled = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil at the end; the producer's error once everything before it was received.
    func receive() throws -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        if !queue.isEmpty {
            condition.broadcast()
            return queue.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }
}
