// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import Testing

/// Entering and leaving a circular region, fix by fix, with the accuracy margin.
struct RegionWatcherTests {
    static let home = Region(
        name: "Home", latitude: 52, longitude: 5, radius: 100, regionID: "abcd1234",
        created: Timestamp(milliseconds: 1_600_000_000_000))

    @Test func jitterAtTheEdgeDoesNotFlap() {
        var w = RegionWatcher(regions: [Self.home])
        // The first fix sets the state: outside, no event.
        #expect(w.add(fix(0, north: 300, accuracy: 5)).isEmpty)
        #expect(w.insideNames.isEmpty)
        // Wandering across the edge within the margin (10 m for a 10 m fix): nothing.
        for (i, d) in [104.0, 96, 103, 95, 106].enumerated() {
            #expect(w.add(fix(Int64(1 + i), north: d, accuracy: 10)).isEmpty, "\(d) m")
        }
        // 89 m with a 10 m fix: in by more than the margin.
        let entered = w.add(fix(10, north: 89, accuracy: 10))
        #expect(entered.map(\.event) == [.enter] && entered.first?.region.name == "Home")
        #expect(w.insideNames == ["Home"])
        #expect(w.add(fix(11, north: 108, accuracy: 10)).isEmpty)
        #expect(w.add(fix(12, north: 111, accuracy: 10)).map(\.event) == [.leave])
    }

    @Test func aFixWorseThanTheRadiusTellsNothing() {
        var w = RegionWatcher(regions: [Self.home])
        _ = w.add(fix(0, north: 500, accuracy: 5))
        #expect(w.add(fix(1, north: 0, accuracy: 150)).isEmpty)
        #expect(w.insideNames.isEmpty)
        #expect(w.add(fix(2, north: 0, accuracy: 20)).map(\.event) == [.enter])
    }
}
