// SPDX-License-Identifier: MIT
import GPSLogModel
import Testing

/// The outlier rules on tracks whose bad points are known: each test makes a straight 1 Hz walk (1.4 m/s), puts
/// faults into it, and expects exactly those back.
struct OutlierDetectorTests {
    /// A walk north from 52°N 5°E, one point a second, keys 0...n-1.
    func walk(_ n: Int, accuracy: Double? = 5) -> [OutlierDetector.Point] {
        (0..<n).map { i in
            .init(
                key: Int64(i), time: 1_700_000_000_000 + Int64(i) * 1000, latitude: 52 + Double(i) * 1.4 / 111_195,
                longitude: 5, accuracy: accuracy)
        }
    }

    func outliers(_ points: [OutlierDetector.Point], _ rules: OutlierRules = OutlierRules())
        -> [Int64: OutlierDetector.Reason]
    {
        var detector = OutlierDetector(rules: rules)
        var found: [Int64: OutlierDetector.Reason] = [:]
        for p in points { for (q, why) in detector.feed(p) { found[q.key] = why } }
        for (q, why) in detector.finish() { found[q.key] = why }
        return found
    }

    @Test func aCleanWalkHasNone() {
        #expect(outliers(walk(500)).isEmpty)
        // Even at a walker's limit, with its accuracy allowed for.
        #expect(outliers(walk(500), OutlierRules(maxSpeed: 2)).isEmpty)
    }

    @Test func singleAndDoubleSpikesAndTheirNeighboursKept() {
        var points = walk(100)
        points[10].latitude += 0.05  // 5.5 km away for one second
        points[40].longitude += 0.1  // two points away, then back
        points[41].longitude += 0.1
        points[70].latitude -= 0.05  // two separate spikes in a row, in two directions
        points[71].latitude += 0.05
        #expect(outliers(points) == [10: .jump, 40: .jump, 41: .jump, 70: .jump, 71: .jump])
    }

    @Test func nullIslandAndPoorAccuracy() {
        var points = walk(50)
        points[5].latitude = 0
        points[5].longitude = 0
        points[20].accuracy = 80
        #expect(outliers(points, OutlierRules(maxAccuracy: 50)) == [5: .nullIsland, 20: .accuracy])
        // Without an accuracy limit only 0°, 0° goes.
        #expect(outliers(points) == [5: .nullIsland])
    }

    @Test func aRealJumpIsKeptAndABadFirstFixIsNot() {
        // The receiver was carried 20 km in a car while switched off for 10 minutes: 33 m/s, believable.
        var points = walk(60)
        for i in 30..<60 {
            points[i].latitude += 0.18
            points[i].time += 600_000
        }
        #expect(outliers(points).isEmpty)
        // Teleported with no gap (a receiver's new constellation), three agreeing points make it real.
        var teleport = walk(60)
        for i in 30..<60 { teleport[i].latitude += 0.5 }
        #expect(outliers(teleport).isEmpty)
        // A bad first fix: the track after it agrees with itself.
        var cold = walk(20)
        cold[0].latitude += 0.3
        #expect(outliers(cold) == [0: .jump])
    }

    @Test func aSpikeAtTheEndAndAnUntimedTrack() {
        var points = walk(30)
        points[29].longitude += 0.2
        #expect(outliers(points) == [29: .jump])
        // Every point at one time (a GPX without times imports at the file's time): no speed to judge.
        var untimed = walk(30)
        for i in untimed.indices { untimed[i].time = 1_700_000_000_000 }
        untimed[10].latitude += 1
        #expect(outliers(untimed).isEmpty)
    }
}
