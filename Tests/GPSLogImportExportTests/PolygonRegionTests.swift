// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline
import GPSLogSampling
import GPSLogStore
import GPSLogTestSupport
import Testing

/// GeoJSON polygons as regions: GEOS's checks at import, and the outline the recording watches them by.
@Suite(.ownThreads)
struct PolygonRegionTests {
    /// Metres to degrees around 52° N, 5° E (the projection's scales there).
    static let north = 1 / (Geo.earthRadius * .pi / 180)
    static let east = north / cos(52 * Double.pi / 180)

    /// A ring of a square `side` metres wide centred `x` metres east and `y` north of 52° N, 5° E, as GeoJSON text.
    static func square(_ side: Double, x: Double = 0, y: Double = 0) -> String {
        let h = side / 2
        let corners = [(-h, -h), (h, -h), (h, h), (-h, h), (-h, -h)]
        return "["
            + corners.map { "[\(5 + (x + $0.0) * east),\(52 + (y + $0.1) * north)]" }.joined(separator: ",") + "]"
    }

    static func feature(_ name: String, _ geometry: String) -> String {
        #"{"type":"Feature","properties":{"name":"\#(name)"},"geometry":\#(geometry)}"#
    }

    static func collection(_ features: String...) -> Data {
        Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8)
    }

    static let meadow = feature("Meadow", #"{"type":"Polygon","coordinates":[\#(square(200))]}"#)
    /// A square ring: 200 m wide with a 100 m hole in the middle.
    static let yard = feature("Yard", #"{"type":"Polygon","coordinates":[\#(square(200)),\#(square(100))]}"#)
    /// Its edges cross in the middle: not a valid polygon.
    static let bowtie = feature(
        "Bowtie", #"{"type":"Polygon","coordinates":[[[5,52],[5.001,52.001],[5.001,52],[5,52.001],[5,52]]]}"#)

    static func read(_ data: Data, name: String = "regions.geojson") throws -> RegionFile.Contents {
        try RegionFile.read(data, source: name, created: Timestamp(milliseconds: 1_700_000_000_000))
    }

    @Test func aValidPolygonBecomesARegionWithAPointInsideAndACircleAroundIt() throws {
        let contents = try Self.read(Self.collection(Self.meadow))
        #expect(contents.kind == .geoJSON)
        let region = try #require(contents.regions.first)
        #expect(contents.regions.count == 1 && region.name == "Meadow" && region.isPolygon)
        // GEOS's point on the surface of a square: on its middle line, inside.
        #expect(abs(region.latitude - 52) < 1e-9 && abs(region.longitude - 5) < 100 * Self.east)
        // The farthest corner from there: at most the diagonal, at least half of it.
        #expect(region.radius > 141 && region.radius <= 283, "\(region.radius)")
        let outline = try PolygonOutline(region)
        #expect(outline.vertexCount == 4)
        #expect(abs(outline.area - 40_000) < 40, "\(outline.area)")
        #expect(abs(outline.depth - 100) < 1, "\(outline.depth)")
        #expect(abs(try outline.signedDistance(latitude: 52, longitude: 5) + 100) < 0.5)
        #expect(abs(try outline.signedDistance(latitude: 52 + 110 * Self.north, longitude: 5) - 10) < 0.05)
    }

    @Test func aBowtieIsRefusedWithTheFileTheFeatureAndGEOSsReason() throws {
        let error = #expect(throws: ImportError.self) {
            _ = try Self.read(Self.collection(Self.meadow, Self.bowtie), name: "bowtie.geojson")
        }
        #expect(
            error?.errorDescription
                == "bowtie.geojson: features[1] ('Bowtie'): not a valid polygon: Self-intersection[5.0005 52.0005] (GEOS); nothing was imported."
        )
    }

    @Test func aMultiPolygonIsOneRegionOfBothParts() throws {
        let parts = #"{"type":"MultiPolygon","coordinates":[[\#(Self.square(100))],[\#(Self.square(100, x: 1000))]]}"#
        let region = try #require(try Self.read(Self.collection(Self.feature("Fields", parts))).regions.first)
        let outline = try PolygonOutline(region)
        #expect(outline.vertexCount == 8)
        #expect(abs(outline.area - 20_000) < 20, "\(outline.area)")
        // Inside either part; between them, outside by the gap to the nearer one.
        #expect(try outline.signedDistance(latitude: 52, longitude: 5) < -49)
        #expect(try outline.signedDistance(latitude: 52, longitude: 5 + 1000 * Self.east) < -49)
        #expect(abs(try outline.signedDistance(latitude: 52, longitude: 5 + 300 * Self.east) - 250) < 0.5)
        // Its point and radius hold both parts.
        #expect(region.radius > 1000)
    }

    @Test func aPointInTheHoleIsOutside() throws {
        let region = try #require(try Self.read(Self.collection(Self.yard)).regions.first)
        let outline = try PolygonOutline(region)
        #expect(outline.vertexCount == 8)
        #expect(abs(outline.area - 30_000) < 30, "\(outline.area)")
        // The middle of the hole: 50 m from its edge, outside. The ring between: inside, 25 m from both edges.
        #expect(abs(try outline.signedDistance(latitude: 52, longitude: 5) - 50) < 0.05)
        #expect(abs(try outline.signedDistance(latitude: 52 + 75 * Self.north, longitude: 5) + 25) < 0.05)
        // GEOS's point on the surface is in the ring, not in the hole.
        #expect(try outline.signedDistance(latitude: region.latitude, longitude: region.longitude) < 0)
    }

    /// Walking north across the yard's outer edge (100 m north of its middle) with 10 m fixes: in by the margin
    /// (10 m), out by it, jitter within it changing nothing; then south into the hole (its edge 50 m north of the
    /// middle) and back: out and in again, by the margin.
    @Test func theWatcherEntersAndLeavesAPolygonWithTheMargin() throws {
        let region = try #require(try Self.read(Self.collection(Self.yard)).regions.first)
        var watcher = try #require(try RegionWatcher.watching([region]))
        var events: [(Double, RegionEvent)] = []
        for north in [130.0, 104, 96, 105, 92, 89, 95, 104, 108, 111, 97, 105, 62, 38, 55, 63] {
            let fix = Fix(
                time: Timestamp(milliseconds: 1_700_000_000_000), latitude: 52 + north * Self.north, longitude: 5,
                horizontalAccuracy: 10)
            events += try watcher.add(fix).map { (north, $0.event) }
        }
        #expect(events.map(\.0) == [89, 111, 62, 38, 63], "\(events)")
        #expect(events.map(\.1) == [.enter, .leave, .enter, .leave, .enter])
        #expect(watcher.insideNames == ["Yard"])
    }

    @Test func theKindIsToldByTheContentNotTheName() throws {
        let waypoints = Data(
            #"{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Hut","lat":47,"lon":10,"rad":50}]}"#.utf8)
        #expect(try Self.read(waypoints, name: "regions.geojson").kind == .ownTracksWaypoints)
        #expect(try Self.read(Self.collection(Self.meadow), name: "waypoints.json").regions.map(\.name) == ["Meadow"])
        // A lone Feature and a bare geometry (named by nothing: refused) are GeoJSON too.
        #expect(try Self.read(Data(Self.meadow.utf8)).regions.count == 1)
        let bare = #expect(throws: ImportError.self) {
            _ = try Self.read(Data(#"{"type":"Polygon","coordinates":[\#(Self.square(10))]}"#.utf8))
        }
        #expect(bare?.errorDescription?.contains("the feature: no name (properties.name, desc or title)") == true)
        let neither = #expect(throws: ImportError.self) { _ = try Self.read(Data(#"{"kind":"x"}"#.utf8)) }
        #expect(neither?.errorDescription?.contains("neither OwnTracks waypoints") == true)
    }

    @Test(arguments: [
        (
            #"{"type":"Feature","properties":{"title":"T"},"geometry":{"type":"Polygon","coordinates":[[[5,52],[5,95],[6,52],[5,52]]]}}"#,
            "regions.geojson: geometry.coordinates[0][1] '5.0, 95.0 (longitude from -180 to 180, latitude from -90 to 90)' is not valid"
        ),
        (
            #"{"type":"Feature","properties":{"desc":"D"},"geometry":{"type":"Polygon","coordinates":[[[5,52],[5,53],[6,52]]]}}"#,
            "regions.geojson: geometry.coordinates[0] '3 positions (a ring needs at least 4, the last the same as the first)'"
        ),
        (
            #"{"type":"Feature","properties":{"name":"N"},"geometry":{"type":"Polygon","coordinates":[[[5,52],[true,53],[6,52],[5,52]]]}}"#,
            "regions.geojson: geometry.coordinates[0][1][0] 'not a number' is not valid"
        ),
        (
            #"{"type":"Feature","properties":{"name":"Flat"},"geometry":{"type":"Polygon","coordinates":[[[5,52],[6,52],[7,52],[5,52]]]}}"#,
            "regions.geojson: the feature ('Flat'): not a valid polygon: Self-intersection[6 52] (GEOS)"
        ),
        (
            #"{"type":"Feature","properties":{"name":"Huge"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[40,0],[40,40],[0,0]]]}}"#,
            "km from the region's inner point: at most 1000 km"
        ),
    ])
    func badPolygonsAreRefusedNamingTheirPlace(file: String, message: String) throws {
        let error = #expect(throws: ImportError.self) { _ = try Self.read(Data(file.utf8)) }
        #expect(error?.errorDescription?.contains(message) == true, "\(error?.errorDescription ?? "")")
    }

    @Test func theFileIsBounded() throws {
        let many = (0...GeoJSONPolygons.maxFeatures).map {
            Self.feature("R\($0)", #"{"type":"Point","coordinates":[5,52]}"#)
        }
        let error = #expect(throws: ImportError.self) {
            _ = try Self.read(Data(#"{"type":"FeatureCollection","features":[\#(many.joined(separator: ","))]}"#.utf8))
        }
        #expect(error?.errorDescription?.contains("1001 features: at most 1000 regions a file") == true)
        let ring = (0..<GeoJSONPolygons.maxPositions).map { "[\(5 + Double($0) * 1e-6),52]" }.joined(separator: ",")
        let long = #expect(throws: ImportError.self) {
            _ = try Self.read(
                Self.collection(Self.feature("Long", #"{"type":"Polygon","coordinates":[[\#(ring),[5,52]]]}"#)))
        }
        #expect(long?.errorDescription?.contains("features[0] ('Long'): 100001 positions: at most 100000") == true)
        try withTemporaryDirectory { dir in
            let big = dir + "/big.geojson"
            #expect(FileManager.default.createFile(atPath: big, contents: Data(count: RegionFile.maxSize + 1)))
            let tooBig = #expect(throws: ImportError.self) { _ = try RegionFile.read(path: big) }
            #expect(
                tooBig?.errorDescription == "\(big): larger than 16 MB: not a file of regions; nothing was imported.")
        }
    }

    /// GEOS 3.11's largest inscribed circle starts from a grid of squares as wide as the envelope's shorter side: for
    /// this sliver, 1670 km by 11 cm, seventeen million of them (6 s). Its depth comes from its area and perimeter.
    @Test func aSliverLoadsAtOnceWithADepthOfHalfItsWidth() throws {
        let sliver = Self.feature(
            "Sliver", #"{"type":"Polygon","coordinates":[[[0,0],[15,0],[15,0.000001],[0,0.000001],[0,0]]]}"#)
        let region = try #require(try Self.read(Self.collection(sliver)).regions.first)
        let start = ContinuousClock.now
        let outline = try PolygonOutline(region)
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(abs(outline.depth - 0.0556) < 0.001, "\(outline.depth)")
    }

    @Test func theStoreKeepsTheOutlineAndRefusesOneThatIsNotAPolygon() throws {
        try withTemporaryStore { store, _ in
            let region = try #require(try Self.read(Self.collection(Self.yard)).regions.first)
            try store.addRegion(region)
            let stored = try #require(try store.regions().first)
            #expect(stored.outline == region.outline && stored.latitude == region.latitude)
            #expect(try PolygonOutline(stored).vertexCount == 8)
            var point = region
            (point.name, point.regionID, point.outline) = ("Pin", "pin", #"{"type":"Point","coordinates":[5,52]}"#)
            let error = #expect(throws: StoreError.self) { try store.addRegion(point) }
            #expect(
                error?.errorDescription?.contains("region_outline_is_polygon") == true, "\(String(describing: error))")
        }
    }
}
