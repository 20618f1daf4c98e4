// SPDX-License-Identifier: MIT
import GPSLogSources
import GPSLogTestSupport
import Testing

/// The waits between attempts to reach a receiver that went away.
@Suite(.ownThreads)
struct BackoffTests {
    static func seconds(_ backoff: inout Backoff, _ count: Int) -> [Double] {
        (0..<count).map { _ in Backoff.seconds(backoff.next()) }
    }

    @Test func aDeviceIsTriedAgainFromHalfASecondUpToFive() {
        var backoff = Backoff.device
        #expect(Self.seconds(&backoff, 7) == [0.5, 1, 2, 4, 5, 5, 5])
    }

    @Test func gpsdIsTriedAgainFromAQuarterSecondUpToThirty() {
        var backoff = Backoff.daemon
        #expect(Self.seconds(&backoff, 10) == [0.25, 0.5, 1, 2, 4, 8, 16, 30, 30, 30])
    }

    @Test func anAnswerStartsTheScheduleAgain() {
        var backoff = Backoff.device
        _ = Self.seconds(&backoff, 5)
        backoff.reset()
        #expect(Self.seconds(&backoff, 3) == [0.5, 1, 2])
    }

    @Test func aMaximumBelowTheFirstWaitIsTheFirstWait() {
        var backoff = Backoff(initial: .seconds(2), maximum: .seconds(1))
        #expect(Self.seconds(&backoff, 3) == [2, 2, 2])
    }
}
