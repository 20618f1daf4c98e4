// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog region` and the transitions a recording makes, on the real hike with a region drawn across it.
@Suite(.ownThreads)
struct RegionTests {
    static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    /// A region of 150 m around the hike's 1000th point, which the track enters and leaves.
    static func addRegion(_ db: String) throws -> (latitude: Double, longitude: Double) {
        let points = try StayTests.points()
        let centre = points[1000]
        let r = try runGPSLog(
            ["region", "add", "Hut", "--lat", "\(centre.latitude)", "--lon", "\(centre.longitude)", "--radius", "150"],
            database: db)
        try #require(r.status == 0, "\(r.stderr)")
        return (centre.latitude, centre.longitude)
    }

    @Test func aRecordingThroughARegionEntersAndLeavesItAndOwnTracksSaysSo() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let centre = try Self.addRegion(db)
            #expect(try runGPSLog(["region", "list"], database: db).stdout.contains("Hut"))
            let again = try runGPSLog(
                ["region", "add", "Hut", "--lat", "1", "--lon", "1", "--radius", "5"], database: db)
            #expect(again.status != 0 && again.stderr.contains("a region of that name exists"), "\(again.stderr)")
            let r = try runGPSLog(
                [
                    "record", "--source", "replay:\(Self.hike)?speed=0", "--geocode", "off", "--name", "Hike",
                    "--monitoring", "move",
                ], database: db)
            try #require(r.status == 0, "\(r.stderr)")

            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            let transitions = try store.transitions(of: session.id)
            #expect(transitions.count >= 2)
            #expect(transitions.enumerated().allSatisfy { $1.event == ($0 % 2 == 0 ? .enter : .leave) })
            for t in transitions {
                let d = Geo.distance(lat1: centre.latitude, lon1: centre.longitude, lat2: t.latitude, lon2: t.longitude)
                let margin = min(max(5, t.horizontalAccuracy ?? 0), 75)
                #expect(t.event == .enter ? d <= 150 - margin : d > 150 + margin, "\(t.event) at \(d) m")
            }
            var entries: [Entry] = []
            try store.entries(of: session.id).forEach { entries.append($0) }
            // Each transition made a location (t: c) at its fix; the entries between an enter and its leave are in
            // the region, the others not.
            for t in transitions {
                #expect(entries.contains { $0.time == t.time && $0.trigger == .circularRegion })
            }
            for e in entries {
                let last = transitions.last { $0.time <= e.time }
                let inside = last?.event == .enter
                #expect((e.inRegions == ["Hut"]) == inside, "\(e.time.iso8601())")
            }

            let events = try runGPSLog(["events", "Hike", "--json"], database: db)
            let listed = try #require(
                try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]])
            #expect(listed.count == transitions.count)

            let owntracks = try runGPSLog(["export", "Hike", "--format", "owntracks"], database: db)
            let messages = owntracks.stdout.split(separator: "\n").map {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let sent = messages.compactMap { $0 }.filter { $0["_type"] as? String == "transition" }
            #expect(sent.count == transitions.count)
            let region = try #require(try store.regions().first)
            for (message, t) in zip(sent, transitions) {
                #expect(message["event"] as? String == t.event.rawValue)
                #expect(message["desc"] as? String == "Hut" && message["rid"] as? String == region.regionID)
                #expect(message["t"] as? String == "c")
                #expect(message["wtst"] as? Int == Int(region.created.milliseconds / 1000))
                #expect(message["tst"] as? Int == Int(t.time.milliseconds / 1000))
                #expect(message["acc"] is Int)
            }
            let inRegions = messages.compactMap { $0 }.filter { ($0["inregions"] as? [String]) == ["Hut"] }
            #expect(inRegions.count == entries.filter { $0.inRegions == ["Hut"] && !$0.isHeadingChanged }.count)
            // Through `convert`'s spool (an OwnTracks file to a session XML and back), regions and triggers stay.
            let jsonl = dir + "/hike.jsonl"
            try owntracks.stdout.write(toFile: jsonl, atomically: true, encoding: .utf8)
            let converted = try runGPSLog(["convert", jsonl, dir + "/hike.xml"], database: nil)
            #expect(converted.status == 0, "\(converted.stderr)")
            let xml = try String(contentsOfFile: dir + "/hike.xml", encoding: .utf8)
            #expect(
                xml.components(separatedBy: #"InRegions="[&quot;Hut&quot;]""#).count - 1 == inRegions.count,
                "\(xml.prefix(3000))")
            #expect(xml.contains(#"ReportTrigger="c""#))
            let gpx = try runGPSLog(["export", "Hike", "--format", "gpx"], database: db)
            #expect(
                gpx.stdout.components(separatedBy: "<type>enter</type>").count - 1 == transitions.count / 2
                    + transitions.count % 2)
        }
    }

    /// Replays the hike in quiet mode, then in manual mode, into `db`; returns the manual session's transitions and
    /// entries after checking that quiet wrote nothing at all (no entries, so no session).
    static func recordQuietThenManual(_ db: String) throws -> (transitions: [Transition], entries: [Entry]) {
        for mode in ["quiet", "manual"] {
            let r = try runGPSLog(
                [
                    "record", "--source", "replay:\(hike)?speed=0", "--geocode", "off", "--name", mode,
                    "--monitoring", mode,
                ], database: db)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let store = try Store(path: db)
        defer { store.close() }
        let sessions = try store.sessions()
        try #require(sessions.map(\.name) == ["manual"])
        var entries: [Entry] = []
        try store.entries(of: sessions[0].id).forEach { entries.append($0) }
        return (try store.transitions(of: sessions[0].id), entries)
    }

    @Test func quietModeWritesNoTransitionsAndManualOnlyThem() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try Self.addRegion(db)
            let (transitions, entries) = try Self.recordQuietThenManual(db)
            #expect(transitions.count >= 2)
            #expect(entries.count == transitions.count && entries.allSatisfy { $0.trigger == .circularRegion })
            let removed = try runGPSLog(["region", "remove", "Hut"], database: db)
            #expect(removed.status == 0)
            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            #expect(try store.transitions(of: session.id).count == transitions.count, "history stays")
            #expect(
                try runGPSLog(["region", "remove", "Hut"], database: db).stderr.contains("no region is named 'Hut'"))
        }
    }
}

/// `gpslog region import` of OwnTracks' waypoints export.
@Suite(.ownThreads)
struct RegionImportTests {
    @Test func waypointsWithARadiusBecomeRegionsAndABadOneRefusesTheFile() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let points = try StayTests.points()
            let hut = points[1000]
            // As OwnTracks exports them: one circular region, one plain waypoint.
            let good = """
                {"_type":"waypoints","waypoints":[
                {"_type":"waypoint","desc":"Hut","lat":\(hut.latitude),"lon":\(hut.longitude),"rad":150,"tst":1556600000,"rid":"5f1d1b"},
                {"_type":"waypoint","desc":"Viewpoint","lat":47.5,"lon":10.9,"tst":1556600100}]}
                """
            try good.write(toFile: dir + "/waypoints.json", atomically: true, encoding: .utf8)
            let imported = try runGPSLog(["region", "import", dir + "/waypoints.json"], database: db)
            #expect(
                imported.stdout.contains("Imported 1 region; 1 waypoint without a radius skipped"),
                "\(imported.stderr)")
            let again = try runGPSLog(["region", "import", dir + "/waypoints.json"], database: db)
            #expect(again.stdout.contains("Imported 0 regions; 1 already there"))
            let list = try runGPSLog(["region", "list", "--json"], database: db)
            let regions = try #require(
                try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            #expect(regions.count == 1 && regions[0]["rid"] as? String == "5f1d1b")
            #expect(regions[0]["created"] as? String == "2019-04-30T04:53:20Z")

            let bad = """
                [{"_type":"waypoint","desc":"A","lat":47,"lon":10,"rad":50},{"_type":"waypoint","desc":"B","lat":97,"lon":10,"rad":50}]
                """
            try bad.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
            let refused = try runGPSLog(["region", "import", dir + "/bad.json"], database: db)
            #expect(refused.status != 0 && refused.stderr.contains("waypoints[1].lat, lon"), "\(refused.stderr)")
            #expect(try runGPSLog(["region", "list"], database: db).stdout.split(separator: "\n").count == 1)

            // The imported region works as one added by hand.
            let r = try runGPSLog(
                ["record", "--source", "replay:\(StayTests.hike)?speed=0", "--geocode", "off", "--name", "Hike"],
                database: db)
            #expect(r.status == 0, "\(r.stderr)")
            let events = try runGPSLog(["events", "Hike"], database: db)
            #expect(events.stdout.contains("enter  Hut") && events.stdout.contains("leave  Hut"), "\(events.stdout)")
        }
    }
}
