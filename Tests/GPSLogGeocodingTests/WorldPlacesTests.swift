// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGeocoding
import GPSLogModel
import GPSLogTestSupport
import Testing

/// The world index the way `make test` builds it (`make places`: beside the built gpslog, or `$GPSLOG_PLACES`),
/// found as the binary finds it. Missing, the test fails and says how to build it: CI must not pass without it.
func worldGeocoder() throws -> PlacesGeocoder {
    let searched = WorldPlaces.candidates(executable: TestPaths.gpslogBinary)
    let path = try #require(
        searched.first { FileManager.default.fileExists(atPath: $0) },
        "the world places index is missing (looked for \(searched)): run the tests with `make test`, or `make places` first"
    )
    return PlacesGeocoder(index: try PlacesIndex(path: path), name: "world")
}

/// The default geocoder, places:world, on the real index: known towns on every inhabited continent, the open sea,
/// a point offshore. The expected names are the towns' own; a brute-force scan of rg_cities1000.csv agreed.
@Suite(.ownThreads)
struct WorldPlacesTests {
    @Test(arguments: [
        // Europe
        (52.5185, 5.4714, "Lelystad, Flevoland, NL"),
        (48.8566, 2.3522, "Paris, Ile-de-France, FR"),
        (64.1355, -21.8954, "Reykjavik, Capital Region, IS"),
        (78.2232, 15.6267, "Longyearbyen, Svalbard, SJ"),
        // The Americas
        (37.38605, -122.08385, "Mountain View, California, US"),
        (19.4326, -99.1332, "Mexico City, MX"),
        (-34.6037, -58.3816, "Buenos Aires, Buenos Aires F.D., AR"),
        (-12.0464, -77.0428, "Lima, PE"),
        // Africa
        (-1.2864, 36.8172, "Nairobi, Nairobi Area, KE"),
        (-33.9249, 18.4241, "Cape Town, Western Cape, ZA"),
        (16.7666, -3.0026, "Timbuktu, Tombouctou, ML"),
        // Asia
        (9.936033, 76.259952, "Cochin, Kerala, IN"),
        (47.9077, 106.8832, "Ulaanbaatar, MN"),
        // Oceania
        (-23.698, 133.8807, "Alice Springs, Northern Territory, AU"),
        (-41.2865, 174.7762, "Wellington, NZ"),
        (-18.1416, 178.4419, "Suva, Central, FJ"),
    ])
    func namesTheTown(latitude: Double, longitude: Double, expected: String) throws {
        let geocoder = try worldGeocoder()
        #expect(try geocoder.answer(latitude: latitude, longitude: longitude, language: "en") == .address(expected))
    }

    @Test func farFromEveryPlaceItGivesTheDistanceThenNothing() throws {
        let geocoder = try worldGeocoder()
        // 20 km west of Den Helder's point, in the North Sea (Den Burg, on Texel, is 25 km away).
        #expect(
            try geocoder.answer(latitude: 52.95988, longitude: 4.4607, language: "en")
                == .address("20 km from Den Helder, North Holland, NL"))
        // The mid-Atlantic, Point Nemo, and the North Pole (where every column of the grid is read): no address.
        for (latitude, longitude) in [(30.0, -40.0), (-48.8767, -123.3933), (89.9, 0.0)] {
            #expect(try geocoder.answer(latitude: latitude, longitude: longitude, language: "en") == .none)
        }
        #expect(geocoder.index.count > 140_000, "the whole of cities1000: \(geocoder.index.count) places")
        #expect(geocoder.cacheKey.hasPrefix("places:world@"))
    }

    /// The grid search against a scan of every place: random places (the poles, both sides of 180°) and random
    /// points, the same nearest place and distance (to the index's 1/65536 degree).
    @Test func theGridFindsWhatAScanOfEveryPlaceFinds() throws {
        var random = SplitMix(seed: 22)
        var rows: [PlaceRow] = []
        for i in 0..<3000 {
            let near180 = i % 5 == 0
            let latitude = i % 7 == 0 ? random.uniform(80, 90) * (i % 2 == 0 ? 1 : -1) : random.uniform(-70, 70)
            let longitude = near180 ? random.uniform(179, 180) * (i % 2 == 0 ? 1 : -1) : random.uniform(-180, 180)
            rows.append(PlaceRow(name: "P\(i)", region: "", country: "", latitude: latitude, longitude: longitude))
        }
        // A dense cluster, as in Java or Lombardy (a thousand places to a cell), where the search skips the most.
        for i in 0..<3000 {
            let (latitude, longitude) = (random.uniform(44, 46.5), random.uniform(8, 10.5))
            rows.append(PlaceRow(name: "C\(i)", region: "", country: "", latitude: latitude, longitude: longitude))
        }
        let index = try PlacesIndex(bytes: try PlacesIndex.build(rows, source: "random"), origin: "random")
        for i in 0..<2000 {
            let radius = i % 2 == 0 ? 300_000.0 : 20_000
            var latitude = i % 4 == 0 ? random.uniform(85, 90) * (i % 8 == 0 ? 1 : -1) : random.uniform(-75, 75)
            var longitude = i % 3 == 0 ? random.uniform(179.5, 180) * (i % 2 == 0 ? 1 : -1) : random.uniform(-180, 180)
            if i % 5 == 1 { (latitude, longitude) = (random.uniform(43.5, 47), random.uniform(7.5, 11)) }
            let scan = rows.map {
                (Geo.distance(lat1: latitude, lon1: longitude, lat2: $0.latitude, lon2: $0.longitude), $0.name)
            }.filter { $0.0 <= radius }.min { $0.0 < $1.0 }
            let found = index.nearest(latitude: latitude, longitude: longitude, within: radius)
            let at = "\(latitude), \(longitude)"
            switch (scan, found) {
            case (nil, nil): break
            case (let scan?, let found?):
                #expect(abs(scan.0 - found.distance) < 5, "\(at): \(scan.1), \(found.place.name)")
            // Only a place at the very edge of the radius may be in one and not the other (its stored position).
            case (let scan?, nil): #expect(radius - scan.0 < 5, "\(at): \(scan.1) missed")
            case (nil, let found?): #expect(radius - found.distance < 5, "\(at): \(found.place.name) beyond the radius")
            }
        }
    }

    @Test func theSameRowsInAnyOrderGiveTheSameBytes() throws {
        let rows = (0..<500).map { (i: Int) -> PlaceRow in
            let latitude = Double(i % 90) - 45.3
            let longitude = Double(i * 7 % 360) - 179.9
            return PlaceRow(
                name: "Town \(i % 40)", region: "R\(i % 7)", country: i % 3 == 0 ? "" : "NL", latitude: latitude,
                longitude: longitude)
        }
        let bytes = try PlacesIndex.build(rows, source: "s")
        #expect(try PlacesIndex.build(rows.reversed(), source: "s") == bytes)
        #expect(try PlacesIndex.build(rows + rows.prefix(50), source: "s") == bytes, "exact duplicates once")
        var random = SplitMix(seed: 7)
        #expect(try PlacesIndex.build(rows.shuffled(using: &random), source: "s") == bytes)
    }

    @Test func aDamagedIndexIsRefusedNamingTheFile() throws {
        let rows = [PlaceRow(name: "Urk", region: "Flevoland", country: "NL", latitude: 52.66, longitude: 5.6)]
        let good = try PlacesIndex.build(rows, source: "s")
        #expect(throws: Never.self) { try PlacesIndex(bytes: good, origin: "x") }
        var wrongVersion = good
        wrongVersion[8] = 2
        var cells = good
        cells[32 + 2 + 1 + 4 + 3] = 0xFF  // cell 1 (after the header and the source "s") starts far beyond the place
        var name = good
        let pool = Int(good[20]) | Int(good[21]) << 8  // the pool's size (from byte 20, little-endian)
        name[good.count - pool - 10 + 4 + 3] = 0xFF  // the one place's name offset, far beyond the pool
        let cases: [(String, [UInt8])] = [
            ("cut short", Array(good.dropLast(3))), ("not an index", Array("lat,lon,name".utf8)),
            ("another version", wrongVersion), ("its cell table", cells), ("a name offset", name),
        ]
        for (what, bytes) in cases {
            #expect(throws: PlacesError.self, "\(what)") { try PlacesIndex(bytes: bytes, origin: "/tmp/damaged.bin") }
            do {
                _ = try PlacesIndex(bytes: bytes, origin: "/tmp/damaged.bin")
            } catch {
                #expect(error.localizedDescription.hasPrefix("/tmp/damaged.bin: not a gpslog places index"), "\(what)")
            }
        }
    }
}

/// A small deterministic generator, so a failure can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
