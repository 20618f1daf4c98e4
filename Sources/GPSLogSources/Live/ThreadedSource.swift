// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

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
/// is queued and one batch (at most a window) is in the consumer's hands. The hand-over is a `BlockingQueue`: the
/// consumer task takes everything queued at once (one suspension per batch, not per event).
final class ThreadedProducer: Sendable {
    static let window = 4096
    private let queue = BlockingQueue<SourceEvent>(capacity: ThreadedProducer.window)

    var stopped: Bool { queue.isCancelled }

    /// Stops the reading loop (the consumer is gone or cancelled); wakes a waiting consumer with the end.
    func stop() { queue.cancel() }

    /// Queues one event, waiting while the queue is full. Throws `CancellationError` once stopped.
    func send(_ event: SourceEvent) throws { try queue.put(event) }

    /// Waits `duration` before the next attempt at the input (a device to reopen), or less when stopped meanwhile.
    /// - Throws: `CancellationError` once stopped.
    func pause(for duration: Duration) throws {
        if queue.waitForCancellation(timeout: duration) { throw CancellationError() }
    }

    /// The reading loop ended (with an error, or nil at the end of the input).
    private func finish(_ error: Error?) { queue.finish(throwing: error) }

    /// Everything queued, waiting for at least one event; nil at the end, or once the consumer is cancelled.
    func nextBatch() async throws -> [SourceEvent]? { try await queue.takeAll() }

    /// Starts `body` on a new thread; it queues events with `send` and returns when the input ends.
    static func stream(name: String, _ body: @escaping @Sendable (ThreadedProducer) throws -> Void)
        -> AsyncThrowingStream<[SourceEvent], Error>
    {
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
