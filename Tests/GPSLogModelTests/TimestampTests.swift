// SPDX-License-Identifier: MIT
import GPSLogModel
import Testing

struct TimestampTests {
    @Test func formatsUTCWithAndWithoutMilliseconds() {
        let t = Timestamp(year: 2018, month: 8, day: 20, hour: 9, minute: 47, second: 37)
        #expect(t.milliseconds == 1_534_758_457_000)
        #expect(t.iso8601() == "2018-08-20T09:47:37Z")
        #expect(t.iso8601(fraction: true) == "2018-08-20T09:47:37.000Z")
        #expect(t.adding(milliseconds: 5).iso8601() == "2018-08-20T09:47:37.005Z")
    }

    @Test func parsesOffsetsFractionsAndBareDates() {
        #expect(Timestamp(iso8601: "2015-10-01T08:00:00-0700")?.iso8601() == "2015-10-01T15:00:00Z")
        #expect(Timestamp(iso8601: "2015-10-01T08:00:00+02:00")?.iso8601() == "2015-10-01T06:00:00Z")
        #expect(Timestamp(iso8601: "2024-07-07T17:46:39.25Z")?.milliseconds == 1_720_374_399_250)
        #expect(Timestamp(iso8601: "2024-02-29")?.iso8601() == "2024-02-29T00:00:00Z")
        #expect(Timestamp(iso8601: "1969-12-31T23:59:59.999Z")?.milliseconds == -1)
    }

    @Test func rejectsImpossibleDatesAndGarbage() {
        for text in [
            "2023-02-29T00:00:00Z", "2024-13-01", "2024-01-01T24:00:00Z", "yesterday", "2024-01-01T10:00:00Zjunk", "",
        ] {
            #expect(Timestamp(iso8601: text) == nil, "\(text) should not parse")
        }
    }

    @Test func roundTripsAcrossCenturiesAndNegativeTimes() {
        for ms: Int64 in [-62_135_596_800_000, -1, 0, 951_782_400_123, 4_102_444_799_999] {
            let t = Timestamp(milliseconds: ms)
            #expect(Timestamp(iso8601: t.iso8601(fraction: true)) == t)
        }
    }
}

struct GeoTests {
    @Test func haversineMatchesAKnownDistance() {
        // One minute of latitude is one nautical mile, 1852 m, to within the sphere's error (0.5 %).
        let d = Geo.distance(lat1: 52.0, lon1: 5.0, lat2: 52.0 + 1.0 / 60, lon2: 5.0)
        #expect(abs(d - 1852) < 10)
        #expect(Geo.distance(lat1: 10, lon1: 20, lat2: 10, lon2: 20) == 0)
    }

    @Test func anglesWrapAround() {
        #expect(Geo.angleBetween(359, 2) == 3)
        #expect(Geo.angleBetween(10, 190) == 180)
        #expect(Geo.normalizedDegrees(-30) == 330)
        #expect(Geo.normalizedDegrees(720) == 0)
        #expect(abs(Geo.bearing(lat1: 0, lon1: 0, lat2: 0, lon2: 1) - 90) < 1e-9)
    }
}

struct IdentifierTests {
    @Test func uuidV7IsTimeOrderedAndWellFormed() {
        var rng = SplitMix64(seed: 42)
        let a = Identifier.uuidV7(time: Timestamp(milliseconds: 1_000_000), using: &rng)
        let b = Identifier.uuidV7(time: Timestamp(milliseconds: 1_000_001), using: &rng)
        #expect(Identifier.isUUID(a) && Identifier.isUUID(b))
        #expect(a < b)
        #expect(Array(a)[14] == "7")
        #expect(["8", "9", "a", "b"].contains(Array(a)[19]))
    }

    @Test func seededGeneratorsRepeat() {
        var r1 = SplitMix64(seed: SplitMix64.seed(from: "session"))
        var r2 = SplitMix64(seed: SplitMix64.seed(from: "session"))
        #expect(Identifier.uuidV4(using: &r1) == Identifier.uuidV4(using: &r2))
        #expect(Identifier.uuidV4() != Identifier.uuidV4())
        #expect(!Identifier.isUUID("not-a-uuid"))
    }

    /// Hardening finding 9: a leap second was folded onto :59. It is the next second, after :59, as POSIX time and
    /// the NMEA decoder count it.
    @Test func aLeapSecondIsTheSecondAfterFiftyNine() throws {
        let leap = try #require(Timestamp(iso8601: "2016-12-31T23:59:60Z"))
        let before = try #require(Timestamp(iso8601: "2016-12-31T23:59:59Z"))
        #expect(leap > before && leap == Timestamp(iso8601: "2017-01-01T00:00:00Z"))
        #expect(Timestamp(iso8601: "2016-12-31T23:59:60.500Z") == Timestamp(iso8601: "2017-01-01T00:00:00.500Z"))
        #expect(Timestamp(iso8601: "2016-12-31T23:59:61Z") == nil)
    }

    /// What is read is what `iso8601()` can write back: an offset that carries a time out of the years 0000-9999
    /// is refused (9999-12-31T23:59:59-23:59 came back as 0000-01-01T23:58:59Z).
    @Test func aTimeReadsOnlyWhenItCanBeWrittenBack() throws {
        #expect(Timestamp.writable.lowerBound == Timestamp.days(year: 0, month: 1, day: 1) * 86_400_000)
        #expect(Timestamp.writable.upperBound == Timestamp.days(year: 10000, month: 1, day: 1) * 86_400_000)
        #expect(Timestamp(iso8601: "9999-12-31T23:59:59-23:59") == nil)
        #expect(Timestamp(iso8601: "0000-01-01T00:00:00+01:00") == nil)
        for text in ["9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00Z", "9999-12-31T22:00:00-01:59"] {
            let t = try #require(Timestamp(iso8601: text))
            #expect(Timestamp(iso8601: t.iso8601()) == t)
        }
    }
}
