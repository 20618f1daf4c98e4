// SPDX-License-Identifier: MIT
import GPSLogStore
import Testing

@testable import GPSLogView

/// When `serve`'s background drawing of the history map draws: at once after big writes, once small ones pause,
/// and at most every ten minutes while a recorder keeps writing (each drawing rewrites the tiles it drops).
@Suite struct HistoryWarmPolicyTests {
    let start = ContinuousClock.now

    func state(_ key: Int64, tiles: Int64 = 100, stale: Bool = false) -> HistoryDrawState {
        HistoryDrawState(staleSessions: stale, keptTiles: tiles, lastEntryKey: key)
    }

    /// Rounds every 30 s from `start` + `from` seconds, each reading `state(round)`; the rounds that drew.
    func rounds(
        _ policy: inout HistoryWarmPolicy, from: Int, count: Int, _ state: (Int) -> HistoryDrawState
    ) -> [Int] {
        var drew: [Int] = []
        for i in 0..<count {
            let now = start + .seconds(from + 30 * i)
            let s = state(i)
            if policy.shouldDraw(s, now: now) {
                policy.drew(s, now: now)
                drew.append(from + 30 * i)
            }
        }
        return drew
    }

    @Test func nothingWrittenDrawsOnlyTheFirstRound() {
        var policy = HistoryWarmPolicy()
        #expect(rounds(&policy, from: 0, count: 240) { _ in state(1000) } == [0])
    }

    @Test func aRecorderIsDrawnEveryTenMinutesAndOnceItStops() {
        var policy = HistoryWarmPolicy()
        #expect(rounds(&policy, from: 0, count: 1) { _ in state(1000) } == [0])
        // A commit of 20 points every 20 s, each dropping the tile it lands in (kept again at a drawing).
        let drew = rounds(&policy, from: 30, count: 60) { i in state(1000 + Int64(30 * (i + 1)), tiles: 99) }
        #expect(drew == [600, 1200, 1800], "\(drew)")
        // The recording stops: drawn once the writes have paused a minute, then nothing.
        let key = 1000 + Int64(30 * 60)
        #expect(rounds(&policy, from: 1830, count: 20) { _ in state(key + 30, tiles: 99) } == [1890])
    }

    @Test func aSmallWriteIsDrawnOnceItPauses() {
        var policy = HistoryWarmPolicy()
        _ = rounds(&policy, from: 0, count: 1) { _ in state(1000) }
        // 50 points imported between the rounds at 0 and 30 s: seen at 30 s, quiet a minute at 90 s.
        #expect(rounds(&policy, from: 30, count: 10) { _ in state(1050, tiles: 98) } == [90])
    }

    @Test func bigWritesAreDrawnAtTheNextRound() {
        var policy = HistoryWarmPolicy()
        _ = rounds(&policy, from: 0, count: 1) { _ in state(1000) }
        #expect(rounds(&policy, from: 30, count: 1) { _ in state(11_000) } == [30], "an import of 10,000 entries")
        #expect(rounds(&policy, from: 60, count: 1) { _ in state(11_001, tiles: 84) } == [60], "16 tiles dropped")
        #expect(rounds(&policy, from: 90, count: 1) { _ in state(11_002, tiles: 84, stale: true) } == [90], "a clean")
        #expect(rounds(&policy, from: 120, count: 1) { _ in state(11_003, tiles: 84) } == [], "one more point")
    }
}
