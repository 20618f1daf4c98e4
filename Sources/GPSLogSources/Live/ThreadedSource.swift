// SPDX-License-Identifier: MIT
import Foundation

/// Runs blocking reads (read(2) on a file, a serial line or stdin) on a thread of their own and hands the events
/// to the consumer in batches: whatever has queued since the consumer last looked, taken in one go.
///
/// Batches, because a replay at speed=0 produces hundreds of thousands of events a second: handed over one at a
/// time through an `AsyncThrowingStream`, a semaphore and an actor hop each, the hand-over cost more than parsing
/// and storing the fix (profiled: a quarter of the recorder's time). A live receiver's fix is still handed over
/// at once: when the consumer is waiting, the first event wakes it.
///
/// The queue is bounded: the reading thread waits once `window` events are queued (a file replayed with speed=0 is
/// read far faster than fixes are stored; unbounded, the queue held the whole log in memory). At most one window
/// is queued and one batch (at most a window) is in the consumer's hands.
///
/// Written by hand rather than with swift-async-algorithms' `AsyncChannel`: that channel hands over one element
/// per suspension, which is the cost this type exists to avoid.
final class ThreadedProducer: @unchecked Sendable {
    // @unchecked: every mutable field is accessed under `condition`'s lock.
    static let window = 4096
    private let condition = NSCondition()
    private var queue: [SourceEvent] = []
    private var isStopped = false
    private var isFinished = false
    private var failure: Error?
    private var waiter: CheckedContinuation<[SourceEvent]?, Error>?

    var stopped: Bool { condition.withLock { isStopped } }

    /// Stops the reading loop (the consumer is gone or cancelled); wakes a waiting consumer with the end.
    func stop() {
        let w: CheckedContinuation<[SourceEvent]?, Error>? = condition.withLock {
            isStopped = true
            condition.broadcast()
            defer { waiter = nil }
            return waiter
        }
        w?.resume(returning: nil)
    }

    /// Queues one event, waiting while the queue is full. Throws `CancellationError` once stopped.
    func send(_ event: SourceEvent) throws {
        condition.lock()
        while queue.count >= ThreadedProducer.window && !isStopped { condition.wait() }
        if isStopped {
            condition.unlock()
            throw CancellationError()
        }
        queue.append(event)
        guard let w = waiter else {
            condition.unlock()
            return
        }
        waiter = nil
        let batch = queue
        queue = []
        condition.broadcast()
        condition.unlock()
        w.resume(returning: batch)
    }

    /// The reading loop ended (with an error, or nil at the end of the input).
    private func finish(_ error: Error?) {
        let w: CheckedContinuation<[SourceEvent]?, Error>? = condition.withLock {
            isFinished = true
            failure = error
            defer { waiter = nil }
            return queue.isEmpty ? waiter : nil
        }
        if let error { w?.resume(throwing: error) } else { w?.resume(returning: nil) }
    }

    /// Everything queued, waiting for at least one event; nil at the end, or once the consumer is cancelled.
    func nextBatch() async throws -> [SourceEvent]? {
        if Task.isCancelled {
            stop()
            return nil
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<[SourceEvent]?, Error>) in
                condition.lock()
                if !queue.isEmpty {
                    let batch = queue
                    queue = []
                    condition.broadcast()
                    condition.unlock()
                    c.resume(returning: batch)
                } else if isFinished || isStopped {
                    let error = failure
                    failure = nil
                    condition.unlock()
                    if let error { c.resume(throwing: error) } else { c.resume(returning: nil) }
                } else {
                    waiter = c
                    condition.unlock()
                }
            }
        } onCancel: {
            stop()
        }
    }

    /// Starts `body` on a new thread; it queues events with `send` and returns when the input ends.
    static func stream(name: String, _ body: @escaping @Sendable (ThreadedProducer) throws -> Void) -> AsyncThrowingStream<[SourceEvent], Error> {
        let producer = ThreadedProducer()
        let thread = Thread {
            do {
                try body(producer)
                producer.finish(nil)
            } catch is CancellationError {
                producer.finish(nil)
            } catch {
                producer.finish(error)
            }
        }
        thread.name = name
        thread.start()
        let guardian = StopOnDeinit(producer)
        return AsyncThrowingStream(unfolding: {
            let batch = try await guardian.producer.nextBatch()
            if batch == nil { guardian.producer.stop() }
            return batch
        })
    }
}

/// Stops the reading thread when the stream (and so its consumer) goes away without reading to the end.
private final class StopOnDeinit: Sendable {
    let producer: ThreadedProducer
    init(_ producer: ThreadedProducer) { self.producer = producer }
    deinit { producer.stop() }
}
