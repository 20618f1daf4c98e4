import GPSLogTestSupport
// SPDX-License-Identifier: MIT
import Testing

@testable import GPSLogFormats

/// The queue a `gx:Track`'s times wait in gives them back in order, however the adding and taking interleave and
/// wherever they are kept (in memory up to 1 MiB, then in its scratch file).
@Suite(.ownThreads)
struct KMLPointQueueTests {
    @Test func firstInFirstOutAcrossItsScratchFile() throws {
        let queue = KMLPointQueue()
        var next: Int64 = 0
        var expected: Int64 = 0
        func add(_ n: Int) throws {
            for _ in 0..<n {
                try queue.append(KMLQueuedPoint(time: next))
                next += 1
            }
        }
        func take(_ n: Int) throws {
            for _ in 0..<n {
                let p = try #require(try queue.removeFirst())
                #expect(p.time == expected)
                expected += 1
            }
        }
        // 100,000 records are over 3 MiB: the first spill; taking half, adding more, taking all crosses memory,
        // the file and a file reused from its start.
        try add(100_000)
        try take(50_000)
        try add(100_000)
        try take(150_000)
        #expect(try queue.removeFirst() == nil)
        try add(70_000)
        try take(1)
        try add(1)
        try take(70_000)
        #expect(queue.isEmpty && next == expected)
    }
}
