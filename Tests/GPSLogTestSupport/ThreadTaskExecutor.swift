// SPDX-License-Identifier: MIT
import Foundation

/// A task executor with a thread of its own, for a task under test that must run while other suites' blocking waits
/// hold every thread of Swift's cooperative pool (two on a 2-core machine; a consumer task waited there for over
/// five minutes in a full run). Start the task with `Task(executorPreference:)`.
///
/// Only continuations resumed by someone else come back here: `Task.sleep`'s timer still fires on the global
/// executor, so a task that must keep running should wait on events (`waitForCancellation()`), not on time.
public final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false

    /// Starts the thread, named `name` (it shows in a debugger and in `top -H`).
    public init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Ends the thread once the jobs queued so far have run.
    public func shutdown() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    /// Queues `job` for the thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.withLock {
            jobs.append(unowned)
            condition.signal()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Suspends until the current task is cancelled; resumed by the cancellation itself, not by a timer.
public func waitForCancellation() async {
    let latch = CancellationLatch()
    await withTaskCancellationHandler {
        await withCheckedContinuation { latch.park($0) }
    } onCancel: {
        latch.open()
    }
}

private final class CancellationLatch: @unchecked Sendable {
    private let lock = NSLock()
    private var waiter: CheckedContinuation<Void, Never>?
    private var opened = false

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if opened {
            lock.unlock()
            continuation.resume()
            return
        }
        waiter = continuation
        lock.unlock()
    }

    func open() {
        lock.lock()
        opened = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume()
    }
}
