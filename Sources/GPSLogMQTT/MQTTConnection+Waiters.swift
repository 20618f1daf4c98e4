// SPDX-License-Identifier: MIT
import Foundation

/// Tasks that wait for the loop thread's answers (acknowledgements, a connection) without holding a thread: each
/// waits on a continuation that the loop thread resumes when the answer comes, the connection is lost or the deadline
/// passes (the loop's poll wakes for the earliest deadline). A cancelled task is resumed at once.
extension MQTTConnection {
    struct Waiter {
        enum Goal {
            /// At least `needed` of these messages acknowledged; given up when the connection is lost.
            case acknowledged(Set<Int32>, needed: Int)
            case connected
        }

        var goal: Goal
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, Never>
    }

    /// True when `waiter` is done with: its goal reached, its deadline passed, or the goal out of reach (the
    /// connection lost, the loop ended). Under `shared`.
    private func isSettled(_ goal: Waiter.Goal, deadline: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Bool
    {
        if now >= deadline || !running || stopQueued { return true }
        switch goal {
        case .acknowledged(let mids, let needed): return !connected || mids.intersection(acknowledged).count >= needed
        case .connected: return connected
        }
    }

    /// Resumes the waiters that are done with (`isSettled`). Under `shared`, on the loop thread or at a stop.
    func settleWaiters(now: ContinuousClock.Instant = .now) {
        for (id, waiter) in waiters where isSettled(waiter.goal, deadline: waiter.deadline, now: now) {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    /// The earliest deadline of a waiter, for the loop's poll timeout. Under `shared`.
    var nextWaiterDeadline: ContinuousClock.Instant? { waiters.values.lazy.map(\.deadline).min() }

    /// Waits until `goal` is reached or out of reach, `timeout` passed, or the task is cancelled.
    func wait(for goal: Waiter.Goal, timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        let id = shared.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Cancellation is checked under the lock that `onCancel` takes: a cancel comes before or after.
                let settled = shared.withLock {
                    if Task.isCancelled || isSettled(goal, deadline: deadline, now: .now) { return true }
                    waiters[id] = Waiter(goal: goal, deadline: deadline, continuation: continuation)
                    return false
                }
                // Woken, the loop counts this deadline in its poll timeout.
                if settled { continuation.resume() } else { wake() }
            }
        } onCancel: {
            shared.withLock { waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
