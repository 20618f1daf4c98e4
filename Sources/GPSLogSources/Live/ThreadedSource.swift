// SPDX-License-Identifier: MIT
import Foundation

/// Runs blocking reads (read(2) on a file, a serial line or stdin) on a thread of their own and hands the events
/// to an async stream. Cancelling the consumer sets `stopped`, which the reading loop checks between events.
///
/// The stream is bounded: the reading thread may run at most `window` events ahead of the consumer and then waits
/// (a file replayed with speed=0 is read far faster than fixes are stored; unbounded, the buffer held the whole
/// log in memory).
final class ThreadedProducer: @unchecked Sendable {
    // @unchecked: `stopped` is only written under `lock` and read under it; the semaphore is thread-safe.
    private let lock = NSLock()
    private var isStopped = false
    static let window = 4096
    private let credits = DispatchSemaphore(value: ThreadedProducer.window)

    var stopped: Bool { lock.withLock { isStopped } }

    func stop() { lock.withLock { isStopped = true } }

    /// Waits until the consumer has room for one more event. Throws `CancellationError` once stopped.
    func waitForRoom() throws {
        while credits.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if stopped { throw CancellationError() }
        }
        if stopped { throw CancellationError() }
    }

    /// The consumer took one event.
    func consumed() { credits.signal() }

    /// Starts `body` on a new thread; it yields through the continuation and returns when done.
    /// `body` must call `waitForRoom()` before each `yield`.
    static func stream(
        name: String, _ body: @escaping @Sendable (ThreadedProducer, AsyncThrowingStream<SourceEvent, Error>.Continuation) throws -> Void
    ) -> AsyncThrowingStream<SourceEvent, Error> {
        let producer = ThreadedProducer()
        let inner = AsyncThrowingStream<SourceEvent, Error> { continuation in
            continuation.onTermination = { _ in producer.stop() }
            let thread = Thread {
                do {
                    try body(producer, continuation)
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.name = name
            thread.start()
        }
        // The consumer's side: each event taken gives the reading thread room for one more.
        let iterator = IteratorBox(inner.makeAsyncIterator())
        return AsyncThrowingStream(unfolding: {
            let event = try await iterator.next()
            producer.consumed()
            return event
        })
    }
}

/// Holds the inner stream's iterator for the unfolding closure (only ever used by the one consumer task).
private final class IteratorBox: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<SourceEvent, Error>.AsyncIterator
    init(_ iterator: AsyncThrowingStream<SourceEvent, Error>.AsyncIterator) { self.iterator = iterator }
    func next() async throws -> SourceEvent? { try await iterator.next() }
}
