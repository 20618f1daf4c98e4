// SPDX-License-Identifier: MIT
import GPSLogModel
import Testing

/// The speed the web view's chart and `gpslog plot` draw: the receiver's when it gave one, else derived from the
/// positions, never across a gap.
@Suite struct SpeedDeriverTests {
    static func entry(
        _ seconds: Int64, latitude: Double, speed: Double? = nil, startsSegment: Bool = false
    ) -> Entry {
        Entry(
            id: "e\(seconds)", latitude: latitude, longitude: 5, time: Timestamp(milliseconds: seconds * 1000),
            speed: speed, startsSegment: startsSegment)
    }

    @Test func derivesFromPositionsKeepsRealSpeedsAndStopsAtGaps() throws {
        var deriver = SpeedDeriver()
        // A thousandth of a degree of latitude north every 10 s: about 111.2 m, 11.12 m/s.
        let first = deriver.speed(of: Self.entry(0, latitude: 52.000))
        #expect(first == nil, "the first point has nothing before it")
        let derived = deriver.speed(of: Self.entry(10, latitude: 52.001))
        let second = try #require(derived)
        #expect(second.derived && abs(second.metresPerSecond - 11.12) < 0.01, "\(second)")
        // A receiver's speed is kept as it is, even where the positions say otherwise.
        let kept = deriver.speed(of: Self.entry(20, latitude: 52.002, speed: 3.5))
        let given = try #require(kept)
        #expect(!given.derived && given.metresPerSecond == 3.5)
        // No speed over a gap longer than five minutes, across a segment start, or between points at one time.
        let afterGap = deriver.speed(of: Self.entry(20 + 301, latitude: 52.003))
        let atSegment = deriver.speed(of: Self.entry(330, latitude: 52.004, startsSegment: true))
        let sameTime = deriver.speed(of: Self.entry(330, latitude: 52.005))
        #expect(afterGap == nil && atSegment == nil && sameTime == nil)
        let standing = deriver.speed(of: Self.entry(340, latitude: 52.005))
        let after = try #require(standing)
        #expect(after.derived && after.metresPerSecond == 0)
    }
}
