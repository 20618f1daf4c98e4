// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Overland's logging modes on `record --send`: `latest` sends only the newest point at each send (to a URL
/// template), `owntracks` one OwnTracks message; the older points are passed over, and `status` counts them.
extension LiveSendingSuites {
    @Suite struct LoggingModeTests {
        static let hike = LiveSendingSuites.OverlandRecordsTests.hike

        @Test(arguments: ["latest", "owntracks"])
        func onlyTheNewestPointGoesAtEachSend(mode: String) async throws {
            let server = ScriptedOverlandServer()
            try await server.start()
            try await withTemporaryDirectory { dir in
                let db = dir + "/latest.sqlite"
                let run = try BackgroundGPSLog(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=400", "--geocode", "off", "--commit-every",
                        "1s",
                        "--visits",
                        "--send", server.url + "?lat=%LAT&lon=%LON&ts=%TS", "--send-interval", "1s",
                        "--logging-mode", mode,
                    ], database: db, folder: dir)
                // `status` says so while it runs (one look that sees it). The 10-hour hike replays in about 90 s: at
                // 1000 times its speed (37 s) a loaded machine's `status` calls came after the replay had ended.
                var said = ""
                let seen = try await waitUntilAsync(timeout: 60) {
                    said = try await runGPSLogAsync(["status"], database: db, folder: dir).stdout
                    return said.contains(try Regex("\(mode) only: [1-9][0-9]* skipped"))
                }
                #expect(seen, "\(said)")
                #expect(await run.exitStatus(timeout: 300) == 0, "\(run.stderr)")
                #expect(run.stderr.contains("older points passed over (--logging-mode \(mode))"), "\(run.stderr)")
                let points = try UploadTests.points(db)
                #expect(server.log.count >= 2 && server.log.count < points.count / 10)
                for request in server.log {
                    let lat: Double
                    let lon: Double
                    if mode == "latest" {
                        // One location per request, no records, and the URL's parameters are that location's.
                        #expect(request.features.count == 1 && request.records.isEmpty)
                        let coordinates = try #require(
                            (request.locations.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double])
                        (lon, lat) = (coordinates[0], coordinates[1])
                    } else {
                        let json = try #require(request.json)
                        #expect(json["_type"] as? String == "location" && json["tst"] is Int)
                        (lat, lon) = (try #require(json["lat"] as? Double), try #require(json["lon"] as? Double))
                    }
                    // The URL has the point at 7 decimals; the body too, each rounded its own way (a last digit apart).
                    let query = try #require(request.uri.firstMatch(of: /lat=([-0-9.]+)&lon=([-0-9.]+)/))
                    #expect(abs((Double(query.1) ?? 0) - lat) < 2e-7 && abs((Double(query.2) ?? 0) - lon) < 2e-7)
                }
                // The last request carried the last point: the cursor jumped to it.
                let last = try #require(points.last)
                let store = try Store(path: db)
                defer { store.close() }
                let cursor = try store.database.scalar("SELECT LastTimeStamp FROM Uploads")?.int64
                #expect(cursor == last.time)
            }
            await server.stop()
        }
    }
}
