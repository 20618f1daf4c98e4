// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogSources

/// A file replayed with speed=0 is read far faster than fixes are stored: the reading thread must wait for the
/// recorder instead of queueing the whole log in memory.
@Suite(.ownThreads)
struct BackpressureTests {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    @Test func aFastSourceRunsAtMostAWindowAheadOfItsConsumer() async throws {
        let produced = Counter()
        let total = 50_000
        let stream = ThreadedProducer.stream(name: "test") { producer in
            for i in 0..<total {
                try producer.send(.heading(HeadingReading(time: Timestamp(milliseconds: Int64(i)), degrees: 1)))
                produced.increment()
            }
        }
        var iterator = stream.makeAsyncIterator()
        var received = 0
        var order: [Int64] = []
        let first = try #require(try await iterator.next())
        received += first.count
        // It runs ahead while the consumer holds its first batch (waited for, not slept on: a busy machine may take
        // long to get there), but only by the window it may queue.
        let deadline = ContinuousClock.now + .seconds(60)
        while produced.value < ThreadedProducer.window && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(produced.value >= ThreadedProducer.window)
        #expect(produced.value <= received + ThreadedProducer.window + 1)
        order += first.compactMap { if case .heading(let h) = $0 { h.time.milliseconds } else { nil } }
        while let batch = try await iterator.next() {
            #expect(batch.count <= ThreadedProducer.window)
            received += batch.count
            order += batch.compactMap { if case .heading(let h) = $0 { h.time.milliseconds } else { nil } }
        }
        #expect(received == total)
        #expect(produced.value == total)
        #expect(order == (0..<Int64(total)).map { $0 })
    }

    /// `gpslog stop` cancels the consuming task: the reading thread must stop too, not read the rest of the file.
    @Test func cancellingTheConsumerStopsTheReadingThread() async throws {
        let produced = Counter()
        let ended = Counter()
        // The consumer runs on a thread of its own: in a full run the other suites' blocking waits hold Swift's
        // cooperative threads (two on this VM), and a consumer task there did not start for five minutes.
        let executor = ThreadTaskExecutor(name: "consumer")
        defer { executor.shutdown() }
        let consumer = Task(executorPreference: executor) {
            // The consumer owns the stream, as the recorder does: when it stops, the stream goes away with it.
            let stream = ThreadedProducer.stream(name: "test") { producer in
                defer { ended.increment() }
                while true {
                    try producer.send(.heading(HeadingReading(time: Timestamp(milliseconds: 0), degrees: 1)))
                    produced.increment()
                }
            }
            // A consumer far slower than its source: it holds the first batch until cancelled, so the reading
            // thread fills the queue and waits on it. (Waiting on the cancellation, not on a timer: timers fire on
            // the cooperative pool.)
            for try await _ in stream { await waitForCancellation() }
        }
        let deadline = ContinuousClock.now + .seconds(300)
        while produced.value < 100 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(produced.value >= 100)
        consumer.cancel()
        _ = await consumer.result
        // The reading thread was told to stop: its loop ends (it does not sit blocked on a full queue).
        let stopDeadline = ContinuousClock.now + .seconds(120)
        while ended.value == 0 && ContinuousClock.now < stopDeadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(ended.value == 1)
        // It stopped where it waited on the full queue: one batch taken, at most a window queued, nothing read on.
        #expect(produced.value <= 2 * ThreadedProducer.window)
    }
}
