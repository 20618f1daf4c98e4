// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem
import Testing

/// The one hand-over between threads: order, backpressure, how errors and cancellation travel, and that every
/// thread waiting on it wakes.
struct BlockingQueueTests {
    struct Failed: Error, Equatable { var n = 0 }

    /// Runs `body` on a thread of its own; the semaphore is signalled when it returns.
    static func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let ended = DispatchSemaphore(value: 0)
        Thread {
            body()
            ended.signal()
        }.start()
        return ended
    }

    @Test func elementsArriveInOrderAndTheProducerNeverRunsMoreThanCapacityAhead() throws {
        let queue = BlockingQueue<Int>(capacity: 3)
        let taken = Shared(0)
        let mostAhead = Shared(0)
        let ended = Self.onThread {
            for i in 0..<1_000 {
                try? queue.put(i)
                // Put i + 1, taken at least `taken` (the consumer counts after taking: one more may be in its hands).
                mostAhead.set(max(mostAhead.get(), i + 1 - taken.get()))
            }
            queue.finish()
        }
        var got: [Int] = []
        while let i = try queue.take() {
            got.append(i)
            taken.set(got.count)
        }
        ended.wait()
        #expect(got == Array(0..<1_000))
        #expect(mostAhead.get() <= 3 + 1)
    }

    @Test func theProducersErrorArrivesAfterEverythingQueuedBeforeIt() throws {
        let queue = BlockingQueue<Int>(capacity: 10)
        try queue.put(1)
        try queue.put(2)
        queue.finish(throwing: Failed(n: 7))
        #expect(try queue.take() == 1)
        #expect(try queue.take() == 2)
        #expect(throws: Failed(n: 7)) { try queue.take() }
    }

    @Test func cancellingWakesABlockedProducerWithTheReasonAndDropsWhatWaits() throws {
        let queue = BlockingQueue<Int>(capacity: 2)
        try queue.put(1)
        try queue.put(2)
        let thrown = Shared<Error?>(nil)
        let ended = Self.onThread {
            do { try queue.put(3) } catch { thrown.set(error) }  // blocks: the queue is full
        }
        #expect(ended.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
        queue.cancel(Failed(n: 1))
        #expect(ended.wait(timeout: .now() + .seconds(30)) == .success)
        #expect(thrown.get() as? Failed == Failed(n: 1))
        #expect(queue.isCancelled)
        #expect(try queue.take() == nil)
        // The first reason stays.
        queue.cancel(Failed(n: 2))
        #expect(throws: Failed(n: 1)) { try queue.put(4) }
    }

    @Test func waitingUntilDoneReturnsWhenTheConsumerHasDealtWithEverything() throws {
        let queue = BlockingQueue<Int>(capacity: 2)
        let handled = Shared(0)
        let ended = Self.onThread {
            while (try? queue.take()) != nil {
                usleep(2_000)
                handled.set(handled.get() + 1)
                queue.done()
            }
        }
        for i in 0..<20 { try queue.put(i) }
        try queue.waitUntilDone()
        #expect(handled.get() == 20)
        queue.cancel()
        #expect(ended.wait(timeout: .now() + .seconds(30)) == .success)
    }

    @Test func aConsumerFailureReachesTheProducersNextPutAndItsWait() throws {
        let queue = BlockingQueue<Int>(capacity: 1)
        let ended = Self.onThread {
            while let i = try? queue.take() {
                if i == 3 { queue.cancel(Failed(n: 3)) }
                queue.done()
            }
        }
        var thrown: Error?
        do { for i in 0..<100 { try queue.put(i) } } catch { thrown = error }
        #expect(thrown as? Failed == Failed(n: 3))
        #expect(throws: Failed(n: 3)) { try queue.waitUntilDone() }
        #expect(ended.wait(timeout: .now() + .seconds(30)) == .success)
    }

    @Test func anAsyncConsumerTakesWhatIsQueuedAtOnceAndEndsWithTheProducer() async throws {
        let queue = BlockingQueue<Int>(capacity: 100)
        for i in 0..<5 { try queue.put(i) }
        #expect(try await queue.takeAll() == [0, 1, 2, 3, 4])
        let ended = Self.onThread {
            usleep(50_000)
            try? queue.put(5)  // wakes the suspended consumer
            usleep(50_000)
            queue.finish(throwing: Failed(n: 9))
        }
        #expect(try await queue.takeAll() == [5])
        await #expect(throws: Failed(n: 9)) { try await queue.takeAll() }
        ended.wait()
    }

    @Test func cancellingTheConsumingTaskCancelsTheQueue() async throws {
        let queue = BlockingQueue<Int>(capacity: 1)
        let consumer = Task { try await queue.takeAll() }
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(try await consumer.value == nil)
        #expect(queue.isCancelled)
        #expect(throws: CancellationError.self) { try queue.put(1) }
    }
}

/// A value shared between the test and its threads.
final class Shared<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ new: Value) { lock.withLock { value = new } }
}
