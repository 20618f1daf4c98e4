// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSampling
import Testing

/// The gate before the sampler: outliers dropped and counted, and a new reality believed once fixes confirm it.
struct FixGateTests {
    static let t0: Int64 = 1_714_550_400_000  // 2024-05-01T08:00:00Z

    /// A fix `k` seconds in, `north` metres north of 52° N, 5° E.
    static func fix(_ k: Int, north: Double = 0, east: Double = 0) -> Fix {
        Fix(
            time: Timestamp(milliseconds: t0 + Int64(k) * 1000), latitude: 52 + north / 111_195,
            longitude: 5 + east / 68_460)
    }

    /// Runs fixes through a gate; returns the seconds of the fixes let through and the gate.
    static func run(_ fixes: [Fix], maxSpeed: Double? = 125) -> (passed: [Int64], moved: [Int64], gate: FixGate) {
        var gate = FixGate(maxSpeed: maxSpeed)
        var passed: [Int64] = []
        var moved: [Int64] = []
        for f in fixes {
            gate.admit(f) { fix, isNew, _ in
                passed.append((fix.time.milliseconds - t0) / 1000)
                if isNew { moved.append((fix.time.milliseconds - t0) / 1000) }
            }
        }
        gate.finish()
        return (passed, moved, gate)
    }

    @Test func aJumpIsDroppedAndTheTrackGoesOn() {
        // A car at 20 m/s; fix 5 jumps 3 km east (a multipath fix: 3 km in a second).
        var fixes = (0..<10).map { Self.fix($0, north: Double($0) * 20) }
        fixes[5] = Self.fix(5, north: 100, east: 3000)
        let (passed, moved, gate) = Self.run(fixes)
        #expect(passed == [0, 1, 2, 3, 4, 6, 7, 8, 9])
        #expect(moved.isEmpty)
        #expect(gate.dropped == DroppedFixes(speed: 1))
    }

    @Test func aWrongFirstFixIsOvertakenByTheFixesThatAgree() {
        // The first fix is 40 km off (a cold start); the next ones agree among themselves.
        var fixes = (0..<8).map { Self.fix($0, north: Double($0) * 10) }
        fixes[0] = Self.fix(0, north: 40_000)
        let (passed, moved, gate) = Self.run(fixes)
        #expect(passed == [0, 1, 2, 3, 4, 5, 6, 7])  // the wrong one went through first: nothing to compare it with
        #expect(moved == [1])  // ... and three agreeing fixes started the real track
        #expect(gate.dropped == DroppedFixes())
    }

    @Test func timeGoingBackwardsIsHeldThenDroppedOrBelieved() {
        // A glitch: fix 4 says an hour earlier; the track goes on.
        var fixes = (0..<8).map { Self.fix($0, north: Double($0) * 5) }
        fixes[4] = Self.fix(-3600, north: 20)
        #expect(Self.run(fixes).passed == [0, 1, 2, 3, 5, 6, 7])
        #expect(Self.run(fixes).gate.dropped == DroppedFixes(time: 1))

        // The receiver corrects its clock by an hour for good: after three agreeing fixes the new time is believed.
        let corrected = (0..<4).map { Self.fix($0) } + (4..<10).map { Self.fix($0 - 3600) }
        let run = Self.run(corrected)
        let believed: [Int64] = (4..<10).map { Int64($0 - 3600) }
        #expect(run.passed == [0, 1, 2, 3] + believed)
        #expect(run.moved == [-3596])
        // A day ahead is held too (the decoders refuse years; this catches a GPX replay's).
        var ahead = (0..<6).map { Self.fix($0) }
        ahead[3] = Self.fix(2 * 86_400)
        #expect(Self.run(ahead).passed == [0, 1, 2, 4, 5])
    }

    @Test func noPositionIsCountedAndAPlaneHasNoSpeedLimit() {
        var fixes = (0..<5).map { Self.fix($0, north: Double($0) * 250) }  // 250 m/s: a jet
        fixes[2] = Fix(time: fixes[2].time, latitude: 0, longitude: 0)
        let car = Self.run(fixes)
        #expect(car.gate.dropped.position == 1)
        #expect(car.passed.count < 4)  // too fast for the default limit: held, then believed after three
        #expect(car.gate.dropped.speed + car.passed.count + 1 == 5)
        let plane = Self.run(fixes, maxSpeed: nil)
        #expect(plane.passed == [0, 1, 3, 4])
        #expect(plane.gate.dropped == DroppedFixes(position: 1))
    }

    @Test func tenHertzNoiseIsNotSpeed() {
        // 10 Hz with 5 m of jitter between epochs: 50 m/s per step, but not over a second.
        let fixes = (0..<50).map { k in
            Fix(
                time: Timestamp(milliseconds: Self.t0 + Int64(k) * 100),
                latitude: 52 + (k % 2 == 0 ? 0 : 5 / 111_195.0), longitude: 5)
        }
        var gate = FixGate(maxSpeed: 20)
        var count = 0
        for f in fixes { gate.admit(f) { _, _, _ in count += 1 } }
        #expect(count == 50)
    }
}

/// Splitting a recording that never stops, by the fixes' own times.
struct SessionSplitterTests {
    static func splits(_ fixes: [Fix], _ rules: SplitRules) -> [Int64: SplitReason] {
        var splitter = SessionSplitter(rules: rules, policy: SamplingPolicy())
        var found: [Int64: SplitReason] = [:]
        for f in fixes {
            if let reason = splitter.check(f) { found[(f.time.milliseconds - FixGateTests.t0) / 1000] = reason }
        }
        return found
    }

    @Test func aGapSplits() {
        let fixes = (0..<10).map { FixGateTests.fix($0) } + (700..<710).map { FixGateTests.fix($0) }
        #expect(Self.splits(fixes, SplitRules(gapMilliseconds: 600_000)) == [700: .gap])
        #expect(Self.splits(fixes, SplitRules(gapMilliseconds: 800_000)).isEmpty)
    }

    @Test func movingOnAfterAStopSplitsWhileWanderingDoesNot() {
        // Parked for 10 minutes, wandering 20 m either way; then driving off north at 10 m/s.
        let parked = (0..<600).map { k in FixGateTests.fix(k, north: k % 7 == 0 ? 20 : -15, east: k % 5 == 0 ? 10 : 0) }
        let driving = (600..<660).map { k in FixGateTests.fix(k, north: Double(k - 600) * 10) }
        let rules = SplitRules(stopMilliseconds: 300_000)
        let found = Self.splits(parked + driving, rules)
        #expect(found.count == 1)
        #expect(found.first?.value == .stop)
        #expect((605...607).contains(found.first?.key ?? 0))  // 50 m from where it stopped
        #expect(Self.splits(parked, rules).isEmpty)
        #expect(Self.splits(parked + driving, SplitRules(stopMilliseconds: 900_000)).isEmpty)
    }

    @Test func midnightSplitsInTheZoneAsked() throws {
        // 2024-05-01 21:30 to 22:30 UTC: midnight in Amsterdam (UTC+2 in May) at 22:00 UTC, none in UTC.
        let start = Int(21.5 * 3600) - 8 * 3600  // seconds after t0 (08:00Z)
        let fixes = stride(from: start, to: start + 3600, by: 10).map { FixGateTests.fix($0) }
        let amsterdam = try #require(TimeZone(identifier: "Europe/Amsterdam"))
        let found = Self.splits(fixes, SplitRules(daily: true, timeZone: amsterdam))
        #expect(found == [Int64(14 * 3600): .daily])
        #expect(Self.splits(fixes, SplitRules(daily: true, timeZone: TimeZone(identifier: "UTC")!)).isEmpty)
    }

    @Test func namesAreFilledFromTheFirstFixInTheZone() throws {
        let t = Timestamp(iso8601: "2024-05-01T22:05:09Z")!
        let amsterdam = try #require(TimeZone(identifier: "Europe/Amsterdam"))
        #expect(
            SessionNameTemplate("Drive %Y-%m-%d %H:%M", timeZone: amsterdam).name(at: t) == "Drive 2024-05-02 00:05")
        #expect(
            SessionNameTemplate("%F %R:%S %z day %j %%", timeZone: amsterdam).name(at: t)
                == "2024-05-02 00:05:09 +0200 day 123 %")
        #expect(SessionNameTemplate("Commute", timeZone: amsterdam).hasFields == false)
        #expect(SessionNameTemplate("100%q", timeZone: amsterdam).name(at: t) == "100%q")
    }
}
