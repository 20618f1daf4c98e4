// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import Testing

/// OwnTracks' monitoring modes in the sampler, fix by fix: which fix makes an entry and with what trigger.
struct MonitoringSamplerTests {
    static func sampler(_ mode: MonitoringMode?, configure: (inout SamplingPolicy) -> Void = { _ in }) -> Sampler {
        var policy = SamplingPolicy()
        policy.monitoring = mode
        configure(&policy)
        return Sampler(policy: policy, seed: 1)
    }

    @Test func moveTakesWhicheverComesFirst() {
        var s = Self.sampler(.move)
        #expect(s.add(fix(0)).entry?.trigger == nil)
        #expect(s.add(fix(10, north: 99)) == .dropped(.notDue))
        // 100 m: a distance entry, no trigger.
        let far = s.add(fix(20, north: 100)).entry
        #expect(far != nil && far?.trigger == nil && far?.monitoring == .move)
        #expect(s.add(fix(319, north: 150)) == .dropped(.notDue))
        // 300 s after the last entry: a timer entry.
        #expect(s.add(fix(320, north: 150)).entry?.trigger == .timer)
    }

    @Test func moveWithBothWaitsForDistanceAndTime() {
        var s = Self.sampler(.move) { $0.locatorRule = .both }
        _ = s.add(fix(0))
        #expect(s.add(fix(10, north: 500)) == .dropped(.notDue))
        #expect(s.add(fix(301, north: 50)) == .dropped(.notDue))
        #expect(s.add(fix(302, north: 600)).entry?.trigger == nil)
    }

    @Test func significantNeeds500MetresAndFiveMinutesAndPings() {
        var s = Self.sampler(.significant) { $0.pingIntervalMilliseconds = 900_000 }
        _ = s.add(fix(0))
        // 10 km in 5 minutes is one entry, not twenty.
        #expect(s.add(fix(200, north: 5000)) == .dropped(.notDue))
        #expect(s.add(fix(300, north: 10_000)).entry?.trigger == nil)
        #expect(s.add(fix(700, north: 10_400)) == .dropped(.notDue))
        // Nothing more for 15 minutes: a ping, at the freshest fix and its time.
        #expect(s.add(fix(1199, north: 10_400)) == .dropped(.notDue))
        let ping = s.add(fix(1200, north: 10_400)).entry
        #expect(ping?.trigger == .ping && ping?.time == fix(1200).time)
    }

    @Test func manualAndQuietKeepOnlyMarksAndHeadingsAreOff() {
        for mode in [MonitoringMode.manual, .quiet] {
            var s = Self.sampler(mode)
            #expect(s.add(fix(0)) == .dropped(.notDue))
            #expect(s.add(fix(1000, north: 5000)) == .dropped(.notDue))
            #expect(s.add(HeadingReading(time: fix(1000).time, degrees: 90)) == .dropped(.notDue))
            let mark = s.mark(label: "here")
            #expect(
                mark?.trigger == .user && mark?.monitoring == mode && mark?.latitude == fix(0, north: 5000).latitude)
        }
    }

    @Test func switchingModesMeasuresFromTheLastEntry() {
        var s = Self.sampler(nil)
        #expect(s.add(fix(0)).entry?.monitoring == nil)
        s.policy.monitoring = .move
        #expect(s.add(fix(1, north: 50)) == .dropped(.notDue))
        #expect(s.add(fix(2, north: 100)).entry?.monitoring == .move)
    }
}
