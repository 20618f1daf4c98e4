// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// Each region's own creation second, and `upload` publishing the regions. OwnTracks knows a region by its
/// waypoint's `tst` (booklet: a transition's `wtst` is "timestamp of waypoint creation"), and the OwnTracks Recorder
/// files a waypoint under it (recorder.c: `waypoints/USER/DEVICE/` + isotime(tst) + `.json`): two regions of the same
/// second are one file there.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct RegionWaypointTests {
    /// The app's waypoints export (`_type: waypoints`), three regions that all say the same `tst`.
    static let waypoints = """
        {"_type":"waypoints","waypoints":[
        {"_type":"waypoint","desc":"Bakery","lat":52.23,"lon":13.33,"rad":50,"tst":1709000000,"rid":"b0000001"},
        {"_type":"waypoint","desc":"School","lat":52.24,"lon":13.34,"rad":80,"tst":1709000000,"rid":"b0000002"},
        {"_type":"waypoint","desc":"Park","lat":52.25,"lon":13.35,"rad":200,"tst":1709000000,"rid":"b0000003"}]}
        """

    /// Imports the waypoints and adds two regions in a row; returns the regions.
    static func makeRegions(_ dir: String, db: String) throws -> [Region] {
        try waypoints.write(toFile: dir + "/waypoints.otrw", atomically: true, encoding: .utf8)
        let imported = try runGPSLog(["region", "import", dir + "/waypoints.otrw"], database: db)
        try #require(imported.status == 0, "\(imported.stderr)")
        for (name, lat) in [("Shop", "52.26"), ("Pool", "52.27")] {
            let r = try runGPSLog(
                ["region", "add", name, "--lat", lat, "--lon", "13.36", "--radius", "60"], database: db)
            try #require(r.status == 0, "\(r.stderr)")
        }
        let store = try Store(path: db)
        defer { store.close() }
        return try store.regions()
    }

    @Test func everyRegionHasItsOwnSecond() throws {
        try withTemporaryDirectory { dir in
            let regions = try Self.makeRegions(dir, db: dir + "/gpslog.sqlite")
            #expect(regions.count == 5)
            let seconds = regions.map { $0.created.milliseconds / 1000 }
            #expect(Set(seconds).count == 5, "\(seconds)")
            // The file's own tst stays with one of them; the others follow it.
            let fromFile = regions.filter { $0.regionID.hasPrefix("b000000") }.map { $0.created.milliseconds / 1000 }
            #expect(fromFile.sorted() == [1_709_000_000, 1_709_000_001, 1_709_000_002])
        }
    }

    @Test func uploadPublishesTheRegionsItsTransitionsNameBeforeThem() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let db = dir + "/gpslog.sqlite"
            let regions = try Self.makeRegions(dir, db: db)
            try OwnTracksTransitionsTests.month.write(toFile: dir + "/2024-03.rec", atomically: true, encoding: .utf8)
            try #require(try runGPSLog(["import", dir + "/2024-03.rec", "--name", "March"], database: db).status == 0)
            let subscriber = try MQTTSubscriber(broker: broker, folder: dir)

            let r = try runGPSLog(
                ["upload", "March", "--url", "mqtt://127.0.0.1:\(broker.port)", "--device-id", "rob/phone"],
                database: db)
            try #require(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("Published 6 regions (waypoints)"), "\(r.stdout)")
            // gpslog's 5 regions, and the Office the March transitions went through (the Gym's centre is unknown).
            #expect(waitUntil(timeout: 30) { subscriber.messages.filter { $0.topic.hasSuffix("/event") }.count == 3 })
            let messages = subscriber.messages
            let published = messages.filter { $0.topic == "owntracks/rob/phone/waypoint" }.compactMap(\.json)
            #expect(published.count == 6)
            #expect(Set(published.compactMap { $0["tst"] as? Int }).count == 6)
            #expect(
                Set(published.compactMap { $0["rid"] as? String })
                    == Set(regions.map(\.regionID) + ["a1b2c3d4"]))
            for p in published {
                #expect(p["_type"] as? String == "waypoint" && p["rad"] is Int && p["desc"] is String)
            }
            // Before any transition, each transition through a known region names a published waypoint's tst.
            let firstEvent = try #require(messages.firstIndex { $0.topic.hasSuffix("/event") })
            let lastWaypoint = try #require(messages.lastIndex { $0.topic.hasSuffix("/waypoint") })
            #expect(lastWaypoint < firstEvent)
            let byRID = Dictionary(
                published.map { ($0["rid"] as? String ?? "", $0["tst"] as? Int) }, uniquingKeysWith: { a, _ in a })
            for e in messages.filter({ $0.topic.hasSuffix("/event") }).compactMap(\.json)
            where e["rid"] as? String != "9f8e7d6c" {
                #expect(byRID[e["rid"] as? String ?? ""] == e["wtst"] as? Int, "\(e)")
            }
        }
    }
}
