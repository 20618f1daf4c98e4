// SPDX-License-Identifier: MIT
import Foundation

/// A mutex and a condition variable whose timed waits follow the monotonic clock (`CLOCK_MONOTONIC`): Foundation's
/// `NSCondition.wait(until:)` follows the wall clock, so a clock stepped back an hour would stretch a wait by an hour.
final class MonotonicCondition: @unchecked Sendable {
    // @unchecked: the pthread objects are made for use from any thread; they never move (allocated once).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a `broadcast`; only with the mutex held (inside `withLock`). Wakes may be spurious: wait in a loop on
    /// the condition that matters.
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a `broadcast` until `deadline`; false once it passed. Only with the mutex held.
    func wait(until deadline: ContinuousClock.Instant) -> Bool {
        let left = deadline - .now
        guard left > .zero else { return false }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = left.components
        var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var whole = Int(now.tv_sec) + Int(clamping: seconds)
        whole += nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        var until = timespec(tv_sec: whole, tv_nsec: nanoseconds)
        return pthread_cond_timedwait(condition, mutex, &until) != ETIMEDOUT
    }

    /// Wakes every waiter.
    func broadcast() { pthread_cond_broadcast(condition) }
}
