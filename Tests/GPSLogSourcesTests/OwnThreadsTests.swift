// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The `ownThreads` trait: every test case of a suite that carries it, synchronous or not, runs on a thread of the
/// tests' pool, so a test that blocks never holds a thread of Swift's cooperative pool.
@Suite(.ownThreads)
struct OwnThreadsTests {
    @Test func aSynchronousTestRunsOnTheTestsThreads() {
        #expect(Thread.current.name?.hasPrefix("test-") == true, "\(Thread.current.name ?? "unnamed")")
    }

    @Test(arguments: [1, 2])
    func anAsyncTestComesBackToThemAfterASuspension(case: Int) async throws {
        try await Task.sleep(for: .milliseconds(10 * `case`))
        let name = Self.threadName()
        #expect(name.hasPrefix("test-"), "\(name)")
    }

    @Suite struct Nested {
        @Test func aNestedSuiteHasThemToo() {
            #expect(Thread.current.name?.hasPrefix("test-") == true, "\(Thread.current.name ?? "unnamed")")
        }
    }

    /// The name of the thread running the caller (`Thread.current` is not for async code; this is a plain call).
    static func threadName() -> String { Thread.current.name ?? "unnamed" }

    /// Jobs that block do not hold up the one behind them: each runs on a thread of its own.
    @Test func aBlockedJobDoesNotHoldUpTheNext() async {
        let gate = DispatchSemaphore(value: 0)
        async let blocked: Void = Task(executorPreference: TestThreadPool.shared) { gate.wait() }.value
        await Task(executorPreference: TestThreadPool.shared) { gate.signal() }.value
        await blocked
    }
}
