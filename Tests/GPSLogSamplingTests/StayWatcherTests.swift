// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import Testing

/// The automatic pause and visits, fix by fix.
struct StayWatcherTests {
    static func watcher(pause: Int64? = 600_000, resume: Double = 100, visits: Bool = true) -> StayWatcher {
        StayWatcher(
            rules: StayRules(pauseAfterMilliseconds: pause, resumeRadius: resume, visits: visits),
            policy: SamplingPolicy())
    }

    @Test func aStopPausesAfterTenMinutesAndTheGeofenceResumes() {
        var w = Self.watcher(visits: false)
        #expect(w.add(fix(0)).isEmpty)
        // Wandering 40 m (inside the 50 m stop radius) for ten minutes.
        for s in stride(from: 10, to: 600, by: 10) { #expect(w.add(fix(Int64(s), north: Double(s % 40))).isEmpty) }
        #expect(w.add(fix(600, north: 20)) == [.paused(fix(600, north: 20))])
        #expect(w.isPaused)
        // 90 m from where it paused: still inside the 100 m geofence.
        #expect(w.add(fix(700, north: 110)).isEmpty)
        #expect(w.add(fix(710, north: 121)) == [.resumed(fix(710, north: 121))])
        #expect(!w.isPaused)
    }

    @Test func aResumeRadiusInsideTheStopRadiusDoesNotPauseAgainAtOnce() {
        var w = Self.watcher(pause: 60_000, resume: 20, visits: false)
        _ = w.add(fix(0))
        #expect(w.add(fix(60)) == [.paused(fix(60))])
        #expect(w.add(fix(61, north: 30)) == [.resumed(fix(61, north: 30))])
        #expect(w.add(fix(62, north: 31)).isEmpty)
        #expect(w.add(fix(121, north: 31)) == [.paused(fix(121, north: 31))])
    }

    @Test func aVisitArrivesAfterThreeMinutesAndDepartsAtTheFirstFixOutside() {
        var w = Self.watcher(pause: nil)
        _ = w.add(fix(0, accuracy: 5))
        _ = w.add(fix(60, north: 10, accuracy: 8))
        let arrived = w.add(fix(180, north: 20, accuracy: 5))
        guard case .arrived(let visit) = arrived.first else {
            Issue.record("no arrival: \(arrived)")
            return
        }
        #expect(visit.arrival == fix(0).time && visit.departure == nil)
        #expect(abs(visit.latitude - fix(0, north: 10).latitude) < 1e-9)
        #expect(abs(visit.horizontalAccuracy - 10) < 0.01, "the spread (10 m) is worse than the accuracy (8 m)")
        #expect(w.add(fix(300, north: 49)).isEmpty)
        let left = w.add(fix(310, north: 51))
        guard case .departed(let done) = left.first else {
            Issue.record("no departure: \(left)")
            return
        }
        #expect(done.arrival == fix(0).time && done.departure == fix(310).time)
        // Moving on at once is no visit.
        #expect(w.add(fix(400, north: 200)).isEmpty)
    }
}
