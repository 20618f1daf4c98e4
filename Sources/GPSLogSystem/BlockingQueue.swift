// SPDX-License-Identifier: MIT
import Foundation

/// A bounded first-in-first-out hand-over between threads, guarded by one `NSCondition`: the producer waits while
/// `capacity` elements are queued (backpressure, so memory stays flat however fast it is), the consumer waits while
/// none are. Either side may end it:
///
/// - the producer calls `finish(throwing:)` when its input ends (with its error, if it failed): the consumer receives
///   what is queued, then `nil` (or that error);
/// - the consumer calls `cancel(_:)` when it gives up (stopped, failed, gone): what is queued is dropped, a waiting
///   producer wakes, and every later `put` throws the reason, so the producing loop ends instead of blocking.
///
/// A consumer thread takes one element at a time (`take`); a consumer task takes everything queued at once
/// (`takeAll`, suspended rather than blocking while there is nothing). The producer may wait until the consumer has
/// dealt with everything it put (`done`, `waitUntilDone`).
///
/// Written by hand rather than with swift-async-algorithms' `AsyncChannel` or NIO's async sequences: those hand over
/// between async tasks one element per suspension, while the users here are plain threads running blocking code
/// (read(2), SQLite, write(2)) or hand over whole batches to a task.
///
/// The hot members are `@inlinable` so that each user's element type is specialized in its own module: unspecialized,
/// every `put` would go through generic value witnesses (a replay at speed=0 puts hundreds of thousands a second).
public final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every mutable field is read and written only with `condition` locked.
    @usableFromInline let condition = NSCondition()
    @usableFromInline let capacity: Int
    @usableFromInline var elements: [Element] = []
    /// Elements put and not yet marked `done` (queued, or taken and being worked on).
    @usableFromInline var unfinished = 0
    @usableFromInline var finished = false
    @usableFromInline var failure: Error?
    /// Why the consumer gave up; nil while it has not.
    @usableFromInline var cancellation: Error?
    /// An `async` consumer waiting in `takeAll()`.
    @usableFromInline var waiter: CheckedContinuation<[Element]?, Error>?

    /// A queue that holds at most `capacity` elements (at least 1).
    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// True once the consumer has cancelled.
    @inlinable public var isCancelled: Bool { condition.withLock { cancellation != nil } }

    // MARK: - Producer

    /// Queues an element, waiting while the queue is full.
    /// - Throws: the consumer's reason, once it has cancelled (also while waiting).
    @inlinable public func put(_ element: Element) throws {
        condition.lock()
        while elements.count >= capacity && cancellation == nil { condition.wait() }
        if let cancellation {
            condition.unlock()
            throw cancellation
        }
        elements.append(element)
        unfinished += 1
        guard let w = waiter else {
            condition.broadcast()
            condition.unlock()
            return
        }
        // An async consumer is waiting: hand it everything at once, here (it cannot wait on the condition).
        waiter = nil
        let batch = elements
        elements = []
        condition.broadcast()
        condition.unlock()
        w.resume(returning: batch)
    }

    /// Waits up to `timeout` without queueing anything (a producer pausing before it tries its input again);
    /// returns at once when the consumer cancels.
    /// - Returns: true when the consumer has cancelled.
    public func waitForCancellation(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        condition.lock()
        defer { condition.unlock() }
        // The deadline is monotonic; each wait is bounded again from it, so a clock set meanwhile shortens no pause
        // and lengthens at most one.
        while cancellation == nil {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        return cancellation != nil
    }

    /// The input ended: the consumer gets what is queued, then nil, or `error` when one is given.
    public func finish(throwing error: Error? = nil) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        let w = elements.isEmpty ? waiter : nil
        if w != nil { waiter = nil }
        condition.unlock()
        if let error { w?.resume(throwing: error) } else { w?.resume(returning: nil) }
    }

    // MARK: - Consumer

    /// The next element, waiting for one; nil once the producer finished and everything before was taken, or once
    /// cancelled.
    /// - Throws: the producer's error, after everything queued before it.
    @inlinable public func take() throws -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while elements.isEmpty && !finished && cancellation == nil { condition.wait() }
        if !elements.isEmpty {
            condition.broadcast()
            return elements.removeFirst()
        }
        if cancellation == nil, let failure { throw failure }
        return nil
    }

    /// Everything queued, waiting (suspended, not blocking a thread) for at least one element; nil and errors as
    /// `take()`. Cancelling the task cancels the queue.
    @inlinable public func takeAll() async throws -> [Element]? {
        if Task.isCancelled {
            cancel()
            return nil
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<[Element]?, Error>) in
                condition.lock()
                if !elements.isEmpty {
                    let batch = elements
                    elements = []
                    condition.broadcast()
                    condition.unlock()
                    c.resume(returning: batch)
                } else if finished || cancellation != nil {
                    let error = cancellation == nil ? failure : nil
                    condition.unlock()
                    if let error { c.resume(throwing: error) } else { c.resume(returning: nil) }
                } else {
                    // `put`, `finish` or `cancel` resumes it.
                    waiter = c
                    condition.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Marks an element taken earlier as dealt with (for `waitUntilDone`).
    @inlinable public func done() {
        condition.lock()
        unfinished -= 1
        if unfinished <= 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Waits until every element put has been taken and marked `done`.
    /// - Throws: the reason the consumer cancelled, if it did (at once, or while waiting).
    public func waitUntilDone() throws {
        condition.lock()
        defer { condition.unlock() }
        while unfinished > 0 && cancellation == nil { condition.wait() }
        if let cancellation { throw cancellation }
    }

    /// The consumer gives up: what is queued is dropped, waiting producers and consumers wake, and `put` throws
    /// `reason` from now on. Only the first reason is kept.
    public func cancel(_ reason: Error = CancellationError()) {
        condition.lock()
        if cancellation == nil { cancellation = reason }
        unfinished -= elements.count
        elements.removeAll()
        condition.broadcast()
        let w = waiter
        waiter = nil
        condition.unlock()
        w?.resume(returning: nil)
    }
}
