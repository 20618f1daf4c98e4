// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSystem

/// Overlaps parsing with storing: the importer parses on the calling thread while a second thread inserts the
/// batches it has finished into the store, so a large import uses both cores (profiled: a GPX import spent about
/// half its time in libxml2 and the handler, half in SQLite, one after the other).
///
/// Every call into the store happens on one thread at a time: `appendEntries` queues the batch for the writer
/// thread; every other call first waits until the queue is empty, then runs on the caller's thread. At most
/// `depth` batches wait, so memory stays flat. The first failure of the writer stops the import: it is thrown by
/// the next call (or at the end of `importTransaction`), and the transaction rolls back whole as before.
public final class PipelinedImportTarget: ImportTarget, @unchecked Sendable {
    // @unchecked: `base` is used by one thread at a time (the queue is drained before the caller touches it);
    // `queue` and `exited` are set and read on the caller's thread only.
    private typealias Batch = (entries: [Entry], session: String)
    private let base: any ImportTarget
    private let depth: Int
    /// The batches on their way to the writer thread; one queue per transaction. The writer cancels it with its
    /// first failure, which the caller's next `put` or `waitUntilDone` throws.
    private var queue: BlockingQueue<Batch>
    /// Signalled when the writer thread has returned.
    private var exited: DispatchSemaphore?

    public init(_ base: any ImportTarget, depth: Int = 4) {
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

    public func appendEntries(_ entries: [Entry], to sessionID: String) throws {
        try queue.put((entries, sessionID))
    }

    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?) throws -> Session {
        try drain()
        return try base.createSession(name: name, start: start, mode: mode, id: id)
    }

    public func hasSession(id: String) throws -> Bool {
        try drain()
        return try base.hasSession(id: id)
    }

    public func finishSession(id: String, end: Timestamp) throws {
        try drain()
        try base.finishSession(id: id, end: end)
    }

    public func renameSession(id: String, to name: String) throws {
        try drain()
        try base.renameSession(id: id, to: name)
    }

    public var keepsTrackPointIDs: Bool { base.keepsTrackPointIDs }
    public var keepsFileEntryIDs: Bool { base.keepsFileEntryIDs }

    public func importVisit(_ visit: Visit, to sessionID: String) throws {
        try drain()
        try base.importVisit(visit, to: sessionID)
    }

    public func importTransition(_ transition: Transition, to sessionID: String) throws {
        try drain()
        try base.importTransition(transition, to: sessionID)
    }

    /// Waits for the batches on their way (they may hold the id), so a file that keeps its ids (gpslog's CSV) is
    /// stored a batch at a time rather than overlapped.
    public func entryIDIsFree(_ id: String) throws -> Bool {
        try drain()
        return try base.entryIDIsFree(id)
    }

    public func moveSessionStart(id: String, to start: Timestamp) throws {
        try drain()
        try base.moveSessionStart(id: id, to: start)
    }

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
