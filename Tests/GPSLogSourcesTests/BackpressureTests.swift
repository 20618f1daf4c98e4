// SPDX-License-Identifier: MIT
import Foundation
@testable import GPSLogSources
import GPSLogModel
import Testing

/// A file replayed with speed=0 is read far faster than fixes are stored: the reading thread must wait for the
/// recorder instead of queueing the whole log in memory.
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
        let stream = ThreadedProducer.stream(name: "test") { producer, continuation in
            for i in 0..<total {
                try producer.waitForRoom()
                produced.increment()
                continuation.yield(.heading(HeadingReading(time: Timestamp(milliseconds: Int64(i)), degrees: 1)))
            }
        }
        var iterator = stream.makeAsyncIterator()
        for _ in 0..<10 { _ = try await iterator.next() }
        try await Task.sleep(for: .milliseconds(500))
        // It ran ahead, but only as far as the window allows.
        #expect(produced.value >= ThreadedProducer.window)
        #expect(produced.value <= ThreadedProducer.window + 10)
        var received = 10
        while try await iterator.next() != nil { received += 1 }
        #expect(received == total)
        #expect(produced.value == total)
    }
}
