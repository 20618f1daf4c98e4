// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogPipeline
import GPSLogSystem

/// Overlaps parsing with storing: the importer parses on the calling thread while a second thread inserts the
/// batches it has finished into the store, so a large import uses both cores (profiled: a GPX import spent about
/// half its time in libxml2 and the handler, half in SQLite, one after the other).
///
/// Every call into the store happens on one thread at a time: `appendEntries` queues the batch for the writer
/// thread; every other call first waits until the queue is empty, then runs on the caller's thread. At most
/// `depth` batches wait, so memory stays flat. The first failure of the writer stops the import: it is thrown by
/// the next call (or at the end of `importTransaction`), and the transaction rolls back whole as before.
public final class PipelinedSink: SessionSink, @unchecked Sendable {
    // @unchecked: `base` is used by one thread at a time (the queue is drained before the caller touches it);
    // `queue` and `exited` are set and read on the caller's thread only.
    private typealias Batch = (entries: [Entry], session: String)
    private let base: any SessionSink
    private let depth: Int
    /// The batches on their way to the writer thread; one queue per transaction. The writer cancels it with its
    /// first failure, which the caller's next `put` or `waitUntilDone` throws.
    private var queue: BlockingQueue<Batch>
    /// Signalled when the writer thread has returned.
    private var exited: DispatchSemaphore?

    /// Wraps `base` (the user's store, a convert's spool or stream); at most `depth` batches wait for the writer.
    public init(_ base: any SessionSink, depth: Int = 4) {
        self.base = base
        self.depth = depth
        queue = BlockingQueue(capacity: depth)
    }

    private func startWriter() {
        let queue = BlockingQueue<Batch>(capacity: depth)
        self.queue = queue
        let exited = DispatchSemaphore(value: 0)
        self.exited = exited
        // unowned: the thread has returned before `importTransaction` does (`stopWriter` waits for it), and a
        // strong capture would keep this target, and the store or file it wraps, alive after the import.
        let thread = Thread { [unowned self] in
            defer { exited.signal() }
            while let batch = try? queue.take() {
                do { try base.appendEntries(batch.entries, to: batch.session) } catch { queue.cancel(error) }
                queue.done()
            }
        }
        thread.name = "gpslog import writer"
        thread.start()
    }

    /// Waits until every queued batch is stored; throws the writer's failure, if any.
    private func drain() throws { try queue.waitUntilDone() }

    /// Ends the writer thread. After a success the queue is empty; after a failure what waits is dropped (the
    /// transaction rolls back anyway).
    private func stopWriter() {
        queue.cancel()
        exited?.wait()
        exited = nil
    }

    /// Queues the batch for the writer thread (waiting while `depth` batches do); returns no keys, as they are not
    /// known yet.
    @discardableResult
    public func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        try queue.put((entries, sessionID))
        // Stored later, on the writer thread: their keys are not known yet. Importers do not update rows.
        return []
    }

    /// Runs a call on the caller's thread once every queued batch is stored.
    private func afterDrain<T>(_ call: () throws -> T) throws -> T {
        try drain()
        return try call()
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws
        -> Session
    {
        try afterDrain { try base.createSession(name: name, start: start, mode: mode, id: id, trip: trip) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func hasSession(id: String) throws -> Bool { try afterDrain { try base.hasSession(id: id) } }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func finishSession(id: String, end: Timestamp) throws {
        try afterDrain { try base.finishSession(id: id, end: end) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func renameSession(id: String, to name: String) throws {
        try afterDrain { try base.renameSession(id: id, to: name) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func setSessionStart(id: String, start: Timestamp) throws {
        try afterDrain { try base.setSessionStart(id: id, start: start) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func writeJoiningTransaction<T>(_ body: () throws -> T) throws -> T {
        try afterDrain { try base.writeJoiningTransaction(body) }
    }

    /// The wrapped target's answer.
    public var keepsTrackPointIDs: Bool { base.keepsTrackPointIDs }
    /// The wrapped target's answer.
    public var keepsFileEntryIDs: Bool { base.keepsFileEntryIDs }

    /// Waits for the batches on their way (they may hold the id), so a file that keeps its ids (gpslog's CSV) is
    /// stored a batch at a time rather than overlapped.
    public func entryIDIsFree(_ id: String) throws -> Bool { try afterDrain { try base.entryIDIsFree(id) } }
    /// A batch's ids after one wait, not one wait per id.
    public func takenEntryIDs(_ ids: [String]) throws -> Set<String> {
        try afterDrain { try base.takenEntryIDs(ids) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func setInstanceCount(entryKey: Int64, to count: Int) throws {
        try afterDrain { try base.setInstanceCount(entryKey: entryKey, to: count) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    @discardableResult
    public func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64 {
        try afterDrain { try base.addVisit(visit, to: sessionID) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func setDeparture(of visit: Visit) throws { try afterDrain { try base.setDeparture(of: visit) } }

    /// Waits for the queued batches, then passes it to the wrapped target.
    @discardableResult
    public func addTrackingEvent(_ event: TrackingEvent, to sessionID: String) throws -> Int64 {
        try afterDrain { try base.addTrackingEvent(event, to: sessionID) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    @discardableResult
    public func addTransition(_ transition: Transition, to sessionID: String) throws -> Int64 {
        try afterDrain { try base.addTransition(transition, to: sessionID) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func setDroppedFixes(_ dropped: DroppedFixes, of sessionID: String) throws {
        try afterDrain { try base.setDroppedFixes(dropped, of: sessionID) }
    }

    /// Waits for the queued batches, then passes it to the wrapped target.
    public func setStoppedAutomatically(_ automatically: Bool, of sessionID: String) throws {
        try afterDrain { try base.setStoppedAutomatically(automatically, of: sessionID) }
    }

    /// The wrapped target's transaction, with the writer thread running through it; every batch is stored before
    /// it commits.
    public func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T {
        try base.importTransaction(expectedBytes: expectedBytes) {
            startWriter()
            defer { stopWriter() }
            let result = try body()
            try drain()
            return result
        }
    }
}
