// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import Testing

/// A fix `metresNorth` north of 52°N 5°E at second `s`.
func fix(_ s: Int64, north metresNorth: Double = 0, speed: Double? = nil, accuracy: Double? = nil) -> Fix {
    Fix(
        time: Timestamp(milliseconds: 1_700_000_000_000 + s * 1000), latitude: 52 + metresNorth / 111_195,
        longitude: 5, horizontalAccuracy: accuracy, speed: speed)
}

extension SampleDecision {
    var entry: Entry? { if case .newEntry(let e) = self { return e } else { return nil } }
}

struct SamplerTests {
    @Test func keepsOneFixPerInterval() {
        var sampler = Sampler(policy: SamplingPolicy(intervalMilliseconds: 5000), seed: 1)
        let kept = (0..<20).filter { sampler.add(fix(Int64($0), north: Double($0) * 10, speed: 10)).entry != nil }
        #expect(kept == [0, 5, 10, 15])
    }

    /// A 1 Hz receiver whose clock drifts: fixes 994 ms apart (the Haicom HI-305N of gpsd's test suite) are one per
    /// interval, not one dropped in six; a 10 Hz receiver still gives one a second.
    @Test func aDriftingReceiverKeepsOneFixPerInterval() {
        func at(_ ms: Int64) -> Fix {
            Fix(
                time: Timestamp(milliseconds: 1_700_000_000_000 + ms), latitude: 52 + Double(ms) / 1_000_000,
                longitude: 5, speed: 10)
        }
        var drifting = Sampler(policy: SamplingPolicy(intervalMilliseconds: 1000), seed: 1)
        #expect((0..<60).filter { drifting.add(at(Int64($0) * 994)).entry != nil }.count == 60)
        var fast = Sampler(policy: SamplingPolicy(intervalMilliseconds: 1000), seed: 1)
        let kept = (0..<100).map { Int64($0) * 100 }.filter { fast.add(at($0)).entry != nil }
        #expect(kept == [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000])
        // 40 ms early at most: 959 ms is inside the interval, 960 ms is not.
        var early = Sampler(policy: SamplingPolicy(intervalMilliseconds: 1000), seed: 1)
        #expect(early.add(at(0)).entry != nil)
        #expect(early.add(at(959)) == .dropped(.insideInterval))
        #expect(early.add(at(960)).entry != nil)
        // A tenth of a short interval.
        var short = Sampler(policy: SamplingPolicy(intervalMilliseconds: 200), seed: 1)
        #expect(short.add(at(0)).entry != nil)
        #expect(short.add(at(179)) == .dropped(.insideInterval))
        #expect(short.add(at(180)).entry != nil)
    }

    @Test func repeatsAtTheSamePlaceRaiseTheInstanceCount() {
        var sampler = Sampler(policy: SamplingPolicy(intervalMilliseconds: 1000), seed: 1)
        #expect(sampler.add(fix(0)).entry != nil)
        #expect(sampler.add(fix(1, north: 1)) == .samePlace(instanceCount: 2))
        #expect(sampler.add(fix(2, north: 2.5, speed: 0.2)) == .samePlace(instanceCount: 3))
        #expect(sampler.lastEntry?.instanceCount == 3)
        // Moving faster than the stationary speed is never the same place, even inside the radius.
        #expect(sampler.add(fix(3, north: 1, speed: 1.4)).entry != nil)
        // Beyond the radius, a new row.
        #expect(sampler.add(fix(4, north: 10)).entry?.instanceCount == 1)
    }

    @Test func minDistanceMinTimeAndMaxAccuracyDrop() {
        var sampler = Sampler(
            policy: SamplingPolicy(
                intervalMilliseconds: 0, minDistance: 20, minTimeMilliseconds: 3000, maxAccuracy: 15), seed: 1)
        #expect(sampler.add(fix(0, speed: 5)).entry != nil)
        #expect(sampler.add(fix(1, north: 10, speed: 5)) == .dropped(.tooClose))
        #expect(sampler.add(fix(2, north: 30, speed: 5)) == .dropped(.tooSoon))
        #expect(sampler.add(fix(3, north: 40, speed: 5, accuracy: 50)) == .dropped(.tooInaccurate))
        #expect(sampler.add(fix(4, north: 50, speed: 5, accuracy: 5)).entry != nil)
        #expect(sampler.add(fix(3, north: 60, speed: 5)) == .dropped(.outOfOrder))
        var bad = fix(9)
        bad.latitude = .nan
        #expect(sampler.add(bad) == .dropped(.invalidPosition))
    }

    /// Hardening finding 9: fixes at exactly 0°, 0° ("no position" from a receiver) made an 11,602 km session.
    @Test func fixesAtExactlyZeroZeroAreDropped() {
        var sampler = Sampler(policy: SamplingPolicy(intervalMilliseconds: 0), seed: 1)
        #expect(sampler.add(fix(0)).entry != nil)
        var nowhere = fix(1)
        nowhere.latitude = 0
        nowhere.longitude = 0
        #expect(sampler.add(nowhere) == .dropped(.invalidPosition))
        var nearly = fix(2)
        nearly.latitude = 0.000001
        nearly.longitude = 0
        #expect(sampler.add(nearly).entry != nil, "a real position near 0, 0 is kept")
    }

    @Test func headingChangesBeyondTheFilterWriteHeadingRows() {
        var sampler = Sampler(policy: SamplingPolicy(headingFilter: 5), seed: 1)
        let t = fix(0).time
        #expect(sampler.add(HeadingReading(time: t, degrees: 90)) == .dropped(.noPositionYet))
        _ = sampler.add(fix(0))
        let first = sampler.add(HeadingReading(time: t, degrees: 358)).entry
        #expect(first?.isHeadingChanged == true && first?.heading == 358 && first?.headingTime == t)
        #expect(first?.latitude == 52)
        #expect(sampler.add(HeadingReading(time: t, degrees: 2)) == .dropped(.headingUnchanged))
        #expect(sampler.add(HeadingReading(time: t, degrees: 3.5)).entry?.heading == 3.5)
        #expect(sampler.add(HeadingReading(time: t, degrees: -20)).entry?.heading == 340)
    }

    @Test func marksTakeTheFreshestFixNotTheLastSample() {
        var sampler = Sampler(policy: SamplingPolicy(intervalMilliseconds: 60_000), seed: 1)
        _ = sampler.add(fix(0, speed: 5))
        #expect(sampler.add(fix(10, north: 50, speed: 5)) == .dropped(.insideInterval))
        let mark = sampler.mark(label: "Trailhead")
        #expect(mark?.marked == true && mark?.label == "Trailhead")
        #expect(mark?.time == fix(10).time)
        #expect(mark?.latitude == fix(10, north: 50).latitude)
    }

    @Test func theSameSeedGivesTheSameIDs() {
        var a = Sampler(policy: SamplingPolicy(), seed: 7)
        var b = Sampler(policy: SamplingPolicy(), seed: 7)
        #expect(a.add(fix(0)).entry?.id == b.add(fix(0)).entry?.id)
    }
}
