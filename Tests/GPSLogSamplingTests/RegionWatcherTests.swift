// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import Testing

/// Entering and leaving a circular region, fix by fix, with the accuracy margin.
struct RegionWatcherTests {
    static let home = Region(
        name: "Home", latitude: 52, longitude: 5, radius: 100, regionID: "abcd1234",
        created: Timestamp(milliseconds: 1_600_000_000_000))

    @Test func jitterAtTheEdgeDoesNotFlap() throws {
        var w = RegionWatcher(regions: [Self.home])
        // The first fix sets the state: outside, no event.
        #expect(try w.add(fix(0, north: 300, accuracy: 5)).isEmpty)
        #expect(w.insideNames.isEmpty)
        // Wandering across the edge within the margin (10 m for a 10 m fix): nothing.
        for (i, d) in [104.0, 96, 103, 95, 106].enumerated() {
            #expect(try w.add(fix(Int64(1 + i), north: d, accuracy: 10)).isEmpty, "\(d) m")
        }
        // 89 m with a 10 m fix: in by more than the margin.
        let entered = try w.add(fix(10, north: 89, accuracy: 10))
        #expect(entered.map(\.event) == [.enter] && entered.first?.region.name == "Home")
        #expect(w.insideNames == ["Home"])
        #expect(try w.add(fix(11, north: 108, accuracy: 10)).isEmpty)
        #expect(try w.add(fix(12, north: 111, accuracy: 10)).map(\.event) == [.leave])
    }

    @Test func aFixWorseThanTheRadiusTellsNothing() throws {
        var w = RegionWatcher(regions: [Self.home])
        _ = try w.add(fix(0, north: 500, accuracy: 5))
        #expect(try w.add(fix(1, north: 0, accuracy: 150)).isEmpty)
        #expect(w.insideNames.isEmpty)
        #expect(try w.add(fix(2, north: 0, accuracy: 20)).map(\.event) == [.enter])
    }

    /// A polygon's edge comes from outside the sampler: here a band 40 m deep north of 52° (from 0 to 40 m north),
    /// standing in for the recording layer's GEOS outline.
    struct Band: RegionBoundary {
        func signedDistance(latitude: Double, longitude: Double) -> Double {
            let north = (latitude - 52) * 111_195
            return max(-north, north - 40)
        }
        var depth: Double { 20 }
    }

    @Test func aPolygonIsWatchedByTheBoundaryItIsGiven() throws {
        let band = Region(
            name: "Band", latitude: 52.0002, longitude: 5, radius: 500, regionID: "band0001",
            created: Timestamp(milliseconds: 1_600_000_000_000), outline: #"{"type":"Polygon","coordinates":[]}"#)
        var asked: [String] = []
        var w = try RegionWatcher(regions: [Self.home, band]) { region in
            asked.append(region.name)
            return Band()
        }
        #expect(asked == ["Band"], "circles keep their own edge")
        #expect(try w.add(fix(0, north: -150, accuracy: 5)).isEmpty)
        // 3 m into the band with a 5 m fix: not in by the margin (Home, 3 m from its centre, is entered); 6 m in:
        // entered.
        #expect(try w.add(fix(1, north: 3, accuracy: 5)).map(\.region.name) == ["Home"])
        #expect(try w.add(fix(2, north: 6, accuracy: 5)).map(\.region.name) == ["Band"])
        #expect(w.insideNames == ["Home", "Band"])
        // A fix worse than the depth (25 m) tells nothing; the margin is at most half the depth (10 m), so a 15 m
        // fix 11 m past the far edge is out.
        #expect(try w.add(fix(3, north: 45, accuracy: 25)).isEmpty)
        #expect(try w.add(fix(4, north: 51, accuracy: 15)).map(\.event) == [.leave])
        #expect(w.insideNames == ["Home"])
    }
}
