// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSources
import GPSLogTestSupport
import Testing

@testable import GPSLogRecording

/// What `gpslog status` says about the source, from its counters.
@Suite(.ownThreads)
struct SourceStateTests {
    @Test func aSourceThatLostItsDeviceSaysSinceWhenItWaits() {
        var stats = SourceStatistics()
        stats.didConnect(reconnect: false)
        let start = ContinuousClock.now
        stats.lastSentence = start
        stats.startWaiting(for: .device)
        stats.waitingSince = start
        let wall = Date(timeIntervalSince1970: 1_777_622_435)  // 2026-05-01T08:00:35Z
        let state = SourceState(stats, now: start + .seconds(35), wallClock: wall)
        #expect(state.state == "waiting")
        #expect(state.waitingFor == "device")
        #expect(state.waitingSeconds == 35)
        #expect(state.waitingSince == "2026-05-01T08:00:00Z")
        #expect(state.lastSentenceTime == "2026-05-01T08:00:00Z")
        #expect(state.reconnects == 0)
    }

    @Test func waitingAgainKeepsTheStartOfTheOutage() {
        var stats = SourceStatistics()
        stats.startWaiting(for: .daemon)
        let since = stats.waitingSince
        stats.startWaiting(for: .daemon)
        #expect(stats.waitingSince == since)
        stats.didConnect(reconnect: true)
        let state = SourceState(stats)
        #expect(state.state == "connected")
        #expect(state.waitingFor == nil && state.waitingSince == nil)
        #expect(state.reconnects == 1)
    }

    @Test func aSourceNotYetTriedIsConnecting() {
        let state = SourceState(SourceStatistics())
        #expect(state.state == "connecting")
        #expect(state.lastSentenceTime == nil)
    }
}
