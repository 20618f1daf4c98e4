// SPDX-License-Identifier: MIT
import Foundation

/// Runs blocking reads (read(2) on a file, a serial line or stdin) on a thread of their own and hands the events
/// to an async stream. Cancelling the consumer sets `stopped`, which the reading loop checks between events.
final class ThreadedProducer: @unchecked Sendable {
    // @unchecked: `stopped` is only written under `lock` and read under it.
    private let lock = NSLock()
    private var isStopped = false

    var stopped: Bool { lock.withLock { isStopped } }

    func stop() { lock.withLock { isStopped = true } }

    /// Starts `body` on a new thread; it yields through the continuation and returns when done.
    static func stream(
        name: String, _ body: @escaping @Sendable (ThreadedProducer, AsyncThrowingStream<SourceEvent, Error>.Continuation) throws -> Void
    ) -> AsyncThrowingStream<SourceEvent, Error> {
        AsyncThrowingStream { continuation in
            let producer = ThreadedProducer()
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
    }
}
