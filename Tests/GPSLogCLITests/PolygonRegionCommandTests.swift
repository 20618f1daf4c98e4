// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogPipeline
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog region import` of GeoJSON polygons, and the transitions a recording makes through one, on the real hike.
@Suite(.ownThreads)
struct PolygonRegionCommandTests {
    /// Metres east and north of the hike's 1000th point (an equirectangular projection there; the test's own).
    struct Local {
        let latitude: Double
        let longitude: Double
        var north: Double { Geo.earthRadius * .pi / 180 }
        var east: Double { north * cos(latitude * .pi / 180) }

        func metres(_ lat: Double, _ lon: Double) -> (x: Double, y: Double) {
            ((lon - longitude) * east, (lat - latitude) * north)
        }

        /// GeoJSON's [longitude, latitude], rounded to 6 decimals as a file would have them.
        func degrees(_ x: Double, _ y: Double) -> (lon: Double, lat: Double) {
            (((longitude + x / east) * 1e6).rounded() / 1e6, ((latitude + y / north) * 1e6).rounded() / 1e6)
        }
    }

    /// A meadow drawn over the hike where it winds along the meadow's north edge: 210 by 175 m, its north-west
    /// corner cut. Its vertices, as the GeoJSON has them.
    static func meadow(_ local: Local) -> [(lon: Double, lat: Double)] {
        [(-10.0, -100.0), (200, -100), (200, 75), (10, 75), (-10, 55), (-10, -100)].map { local.degrees($0.0, $0.1) }
    }

    static func geoJSON(_ vertices: [(lon: Double, lat: Double)], extra: String = "") -> String {
        let ring = vertices.map { "[\($0.lon),\($0.lat)]" }.joined(separator: ",")
        return """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"name":"Meadow","rid":"meadow01"},"geometry":{"type":"Polygon","coordinates":[[\(ring)]]}},
            {"type":"Feature","properties":{"title":"Lakes"},"geometry":{"type":"MultiPolygon","coordinates":[[[[5,52],[5.01,52],[5.01,52.01],[5,52]]],[[[6,52],[6.01,52],[6.01,52.01],[6,52]]]]}},
            {"type":"Feature","properties":{"name":"Hut"},"geometry":{"type":"Point","coordinates":[10.98,47.49]}}\(extra)]}
            """
    }

    /// Metres from `p` to the polygon's edge, negative inside (the test's own point-in-polygon and segment distance).
    static func signedDistance(_ p: (x: Double, y: Double), _ ring: [(x: Double, y: Double)]) -> Double {
        var inside = false
        var nearest = Double.infinity
        for (a, b) in zip(ring, ring.dropFirst()) {
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            let (dx, dy) = (b.x - a.x, b.y - a.y)
            let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)))
            nearest = min(
                nearest,
                ((p.x - a.x - t * dx) * (p.x - a.x - t * dx) + (p.y - a.y - t * dy) * (p.y - a.y - t * dy)).squareRoot()
            )
        }
        return inside ? -nearest : nearest
    }

    @Test func aRecordingThroughAPolygonEntersAndLeavesItOnceDespiteJitterAtItsEdge() throws {
        let points = try StayTests.points()
        let local = Local(latitude: points[1000].latitude, longitude: points[1000].longitude)
        let vertices = Self.meadow(local)
        let ring = vertices.map { local.metres($0.lat, $0.lon) }
        // What the hike does at the meadow, from the GPX alone: the time of the first fix inside by the 5 m margin
        // (the GPX has no accuracy: the minimum margin), then of the first fix after it outside by the margin.
        let distances = points.map { Self.signedDistance(local.metres($0.latitude, $0.longitude), ring) }
        try #require(
            !distances.contains { abs(abs($0) - 5) < 0.05 }, "no fix so close to the margin that rounding decides")
        let enter = try #require(distances.indices.dropFirst().first { distances[$0] <= -5 })
        let leave = try #require(distances.indices.dropFirst(enter).first { distances[$0] > 5 })
        #expect(!distances[leave...].contains { $0 <= -5 }, "the hike never comes back into the meadow")
        // Without the margin the track would cross the edge again and again (it winds along the north edge).
        let crossings = zip(distances, distances.dropFirst()).filter { ($0 <= 0) != ($1 <= 0) }.count
        #expect(crossings >= 10, "\(crossings)")

        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            // A bowtie after a good polygon: the file is refused naming the feature and GEOS's reason, nothing taken.
            let bowtie = """
                ,{"type":"Feature","properties":{"name":"Bowtie"},"geometry":{"type":"Polygon","coordinates":[[[10,47],[10.01,47.01],[10.01,47],[10,47.01],[10,47]]]}}
                """
            try Self.geoJSON(vertices, extra: bowtie).write(
                toFile: dir + "/bad.geojson", atomically: true, encoding: .utf8)
            let refused = try runGPSLog(["region", "import", dir + "/bad.geojson"], database: db)
            #expect(refused.status == 1)
            #expect(
                refused.stderr.contains(
                    "\(dir)/bad.geojson: features[3] ('Bowtie'): not a valid polygon: Self-intersection[10.005 47.005] (GEOS); nothing was imported."
                ), "\(refused.stderr)")
            #expect(try runGPSLog(["region", "list"], database: db).stdout.hasPrefix("No regions"))

            // The content tells the kind: a GeoJSON file named .json.
            try Self.geoJSON(vertices).write(toFile: dir + "/regions.json", atomically: true, encoding: .utf8)
            let imported = try runGPSLog(["region", "import", dir + "/regions.json"], database: db)
            #expect(
                imported.stdout == "Imported 2 regions; 1 feature that is not a polygon skipped.\n",
                "\(imported.stderr)")
            let list = try runGPSLog(["region", "list"], database: db).stdout
            #expect(
                list.contains("Meadow  ") && list.contains("polygon of 5 vertices") && list.contains("rid meadow01"))
            #expect(list.contains("Lakes  ") && list.contains("polygon of 6 vertices"))

            let r = try runGPSLog(
                [
                    "record", "--source", "replay:\(StayTests.hike)?speed=0", "--geocode", "off", "--name", "Hike",
                    "--monitoring", "move",
                ], database: db)
            try #require(r.status == 0, "\(r.stderr)")
            let events = try runGPSLog(["events", "Hike", "--json"], database: db)
            let listed = try #require(
                try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]])
            #expect(listed.map { $0["event"] as? String } == ["enter", "leave"], "\(events.stdout)")
            #expect(listed.allSatisfy { $0["region"] as? String == "Meadow" && $0["rid"] as? String == "meadow01" })
            #expect(
                listed.map { $0["time"] as? String } == [points[enter].time.iso8601(), points[leave].time.iso8601()])

            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            let transitions = try store.transitions(of: session.id)
            #expect(transitions.allSatisfy { $0.horizontalAccuracy == nil }, "the margin is the 5 m minimum")
            var entries: [Entry] = []
            try store.entries(of: session.id).forEach { entries.append($0) }
            for e in entries {
                let inside = e.time >= transitions[0].time && e.time < transitions[1].time
                #expect((e.inRegions == ["Meadow"]) == inside, "\(e.time.iso8601())")
            }
            #expect(entries.filter { $0.trigger == .circularRegion }.map(\.time) == transitions.map(\.time))

            // The exports carry the transitions as for a circle.
            let geojson = try runGPSLog(["export", "Hike", "--format", "geojson"], database: db).stdout
            #expect(geojson.components(separatedBy: #""kind":"transition""#).count - 1 == 2)
            let gpx = try runGPSLog(["export", "Hike", "--format", "gpx"], database: db).stdout
            #expect(gpx.components(separatedBy: "<type>enter</type>").count - 1 == 1)
            #expect(gpx.components(separatedBy: "<type>leave</type>").count - 1 == 1)
        }
    }

    @Test func listingExportingAndRemovingPolygonRegions() throws {
        let points = try StayTests.points()
        let local = Local(latitude: points[1000].latitude, longitude: points[1000].longitude)
        let vertices = Self.meadow(local)
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try Self.geoJSON(vertices).write(toFile: dir + "/regions.geojson", atomically: true, encoding: .utf8)
            #expect(try runGPSLog(["region", "import", dir + "/regions.geojson"], database: db).status == 0)
            let list = try runGPSLog(["region", "list", "--json"], database: db)
            let regions = try #require(
                try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let meadow = try #require(regions.first { $0["name"] as? String == "Meadow" })
            #expect(meadow["kind"] as? String == "polygon" && meadow["vertices"] as? Int == 5)
            // The shoelace area of the ring as drawn: 210 by 175 m less the cut corner's triangle (20 by 20 m).
            let area = try #require(meadow["area"] as? Double)
            #expect(abs(area - (210 * 175 - 200)) < 0.005 * area, "\(area)")
            // Its point is inside; its radius reaches its farthest vertex.
            let (lat, lon) = (try #require(meadow["latitude"] as? Double), try #require(meadow["longitude"] as? Double))
            let ring = vertices.map { local.metres($0.lat, $0.lon) }
            #expect(Self.signedDistance(local.metres(lat, lon), ring) < 0)
            let far = vertices.map { Geo.distance(lat1: lat, lon1: lon, lat2: $0.lat, lon2: $0.lon) }.max()!
            #expect(abs(try #require(meadow["radius"] as? Double) - far) < 0.01)

            // OwnTracks has only circles: the meadow goes as a circle holding every vertex, tighter than the stored one.
            let exported = try runGPSLog(["region", "export"], database: db)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
            #expect(document["_type"] as? String == "waypoints")
            let waypoints = try #require(document["waypoints"] as? [[String: Any]])
            let circle = try #require(waypoints.first { $0["desc"] as? String == "Meadow" })
            let (clat, clon, rad) = (circle["lat"] as! Double, circle["lon"] as! Double, circle["rad"] as! Int)
            #expect(
                vertices.allSatisfy { Geo.distance(lat1: clat, lon1: clon, lat2: $0.lat, lon2: $0.lon) <= Double(rad) })
            #expect(Double(rad) < far && circle["rid"] as? String == "meadow01")
            // Read back by `region import`, it is a circle (here under a new name, the old one being taken).
            let renamed = exported.stdout.replacingOccurrences(of: "\"Meadow\"", with: "\"Meadow circle\"")
                .replacingOccurrences(of: "meadow01", with: "meadow02")
            try renamed.write(toFile: dir + "/waypoints.json", atomically: true, encoding: .utf8)
            let again = try runGPSLog(["region", "import", dir + "/waypoints.json"], database: db)
            #expect(again.stdout.hasPrefix("Imported 1 region; 1 already there"), "\(again.stdout)\(again.stderr)")
            #expect(try runGPSLog(["region", "list"], database: db).stdout.contains("Meadow circle  "))

            #expect(try runGPSLog(["region", "remove", "Meadow"], database: db).status == 0)
            let left = try runGPSLog(["region", "list"], database: db).stdout
            #expect(!left.contains("Meadow  ") && left.contains("Lakes  ") && left.contains("Meadow circle  "))
        }
    }

    @Test func quietModeWatchesAPolygonSilentlyAndManualWritesOnlyItsTransitions() throws {
        let points = try StayTests.points()
        let local = Local(latitude: points[1000].latitude, longitude: points[1000].longitude)
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try Self.geoJSON(Self.meadow(local)).write(toFile: dir + "/r.geojson", atomically: true, encoding: .utf8)
            #expect(try runGPSLog(["region", "import", dir + "/r.geojson"], database: db).status == 0)
            let (transitions, entries) = try RegionTests.recordQuietThenManual(db)
            #expect(transitions.map(\.event) == [.enter, .leave])
            #expect(entries.allSatisfy { $0.trigger == .circularRegion })
            #expect(entries.map(\.time) == transitions.map(\.time))
        }
    }
}
