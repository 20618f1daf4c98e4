// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogFormats

/// KML's text values: the times XML Schema allows in `when`, `begin` and `end`, and coordinate tuples.
@Suite(.ownThreads)
struct KMLValuesTests {
    @Test func timesOfEveryPrecisionKMLAllows() {
        func time(_ s: String) -> Timestamp? { KMLValues.time(Array(s.utf8)) }
        #expect(time("2024") == Timestamp(iso8601: "2024-01-01T00:00:00Z"))
        #expect(time("2024-03") == Timestamp(iso8601: "2024-03-01T00:00:00Z"))
        #expect(time("2024-03-05") == Timestamp(iso8601: "2024-03-05T00:00:00Z"))
        #expect(time("2024-03-05T01:02:03+02:00 ") == Timestamp(iso8601: "2024-03-04T23:02:03Z"))
        #expect(time("2024-13") == nil && time("yesterday") == nil && time("") == nil)
    }

    @Test func coordinateTuples() {
        func position(_ s: String, spaces: Bool = false) -> [Double?]? {
            KMLValues.position(Array(s.utf8)[...], spaces: spaces).map { [$0.lon, $0.lat, $0.alt] }
        }
        #expect(position("5.1,52.2") == [5.1, 52.2, nil])
        #expect(position("-180,-90,-4.5") == [-180, -90, -4.5])
        #expect(position("5.1 52.2  3", spaces: true) == [5.1, 52.2, 3])
        #expect(position("5.1,52.2,") == nil && position("5.1") == nil && position("1,2,3,4") == nil)
        #expect(position("181,0") == nil && position("0,90.5") == nil && position("nan,1") == nil)
    }
}
