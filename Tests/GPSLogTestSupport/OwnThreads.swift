// SPDX-License-Identifier: MIT
import Foundation
import Testing

/// Runs each test case of a suite on threads of the tests' own pool instead of Swift's cooperative pool.
///
/// Swift Testing calls a synchronous test from a task, so a test that blocks (a child process awaited with
/// `waitpid`, `waitUntil`'s polling, a socket's read) holds a thread of the cooperative pool for as long as it runs,
/// and that pool has one thread per core: two here. Two such tests at once left every async test beside them
/// without a thread for minutes (a PUBACK wait that ended at a broker's death was seen to end 127 s later, and a
/// 3-second HTTP timeout outlived a 2-minute limit). On these threads a blocking test blocks only itself, and an
/// async test is resumed as soon as what it waits for happens. Swift Testing still runs at most twice as many test
/// cases at once as there are cores, so the pool stays small.
///
/// Put it on each top-level suite (`@Suite(.ownThreads)`); it reaches the suites and tests nested in it.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Recursive: the suites and tests nested in a suite that carries it have it too.
    public var isRecursive: Bool { true }

    /// One scope per test case (each argument of a parameterized test), none around a whole suite.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnThreadsTrait? {
        testCase == nil ? nil : self
    }

    /// Runs the test case with the tests' pool as its task executor: its code, and the code of the child tasks it
    /// starts, runs on that pool's threads.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(TestThreadPool.shared) {
            // The preference takes effect at the task's next suspension: without one, a synchronous test may run
            // where the task happened to be (one of a full run's 687 did, on the cooperative pool). Yielding
            // enqueues the task on the preferred executor, so the test starts on its threads.
            await Task.yield()
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Each test case runs on threads of the tests' own pool, not on Swift's cooperative pool: see `OwnThreadsTrait`.
    public static var ownThreads: Self { OwnThreadsTrait() }
}

/// A task executor that runs each job on an idle thread of its own pool and starts another thread when none is idle,
/// so a job that blocks never holds up the others. Threads stay for later jobs; their number is the most jobs that
/// ever ran at once (a few per test case running).
public final class TestThreadPool: TaskExecutor, @unchecked Sendable {
    /// The pool the `ownThreads` trait runs tests on.
    public static let shared = TestThreadPool()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0
    private var started = 0

    /// Queues `job` for an idle thread, starting one when every thread is busy.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        // Each idle thread takes one queued job: start a thread for every job beyond them.
        let startOne = jobs.count > idle
        if startOne { started += 1 }
        let number = started
        condition.signal()
        condition.unlock()
        if startOne {
            // Named from inside: on Linux a name given before start is not applied, and the thread keeps the
            // name of the one that started it (often one of Dispatch's).
            Thread { [self] in
                Thread.current.name = "test-\(number)"
                run()
            }.start()
        }
    }

    private func run() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }
}
