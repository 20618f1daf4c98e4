// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

// Dawarich's answers, from its sources (Freika/dawarich):
// - app/controllers/api/v1/points_controller.rb: `create` renders `{ data: points }` (200), the rows
//   `Points::Create` returns (`app/services/points/create.rb`: id, timestamp, longitude, latitude); `index` renders
//   the serialized points (200) with X-Current-Page and X-Total-Pages.
// - app/serializers/api/point_serializer.rb: a Point's columns but created_at, updated_at, visit_id, import_id,
//   user_id, raw_data and country_id, latitude and longitude as strings (the columns: db/schema.rb, `points`).
// - app/controllers/api/v1/stats_controller.rb and app/serializers/stats_serializer.rb.
// - app/controllers/api_controller.rb: the key as `?api_key=` or `Authorization: Bearer`; 401 `{"error": ...}`
//   without it.

/// A client set up for Dawarich gets Dawarich's answers from `gpslog serve`: their status codes and shapes, with the
/// key in the URL and in a Bearer header.
@Suite(.ownThreads, .serialized) struct ServeDawarichShapesTests {
    static let token = "dawarich-shapes-token-0123456789"

    /// The keys of `Api::PointSerializer`'s object that gpslog answers.
    static let pointKeys: Set<String> = [
        "id", "battery_status", "ping", "battery", "tracker_id", "topic", "altitude", "longitude", "velocity",
        "trigger", "bssid", "ssid", "connection", "vertical_accuracy", "accuracy", "timestamp", "latitude", "mode",
        "inrids", "in_regions", "city", "country", "geodata", "course", "course_accuracy", "country_name", "lonlat",
    ]

    @Test(.timeLimit(.minutes(5)))
    func dawarichsPointsAndStatsAnswerInItsShapes() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let (serve, port) = try await LoopbackHTTP.serve(
                ["--token", Self.token, "--verbose"], database: db, folder: dir + "/serve")
            defer { kill(serve.process.processIdentifier, SIGKILL) }
            let keyInURL = (query: "?api_key=\(Self.token)", headers: [(String, String)]())
            let keyInHeader = (query: "", headers: [("Authorization", "Bearer \(Self.token)")])
            func feature(_ second: Int, _ lat: Double) -> String {
                let time = String(format: "2024-05-01T10:00:%02dZ", second)
                return #"{"type":"Feature","geometry":{"type":"Point","coordinates":[5.1,\#(lat)]},"#
                    + #""properties":{"timestamp":"\#(time)","speed":2.5,"altitude":3,"device_id":"dw"}}"#
            }

            // POST /api/v1/points: 200 and `{"data": [...]}`, a row per point taken, with its id (the upsert's
            // `returning: 'id, timestamp, longitude, latitude'` in Dawarich's Points::Create): posted again, the
            // same ids, and nothing stored twice.
            var ids: [Int] = []
            for (i, way) in [keyInURL, keyInHeader, keyInURL].enumerated() {
                let i = min(i, 1)
                let body = #"{"locations":[\#(feature(i * 10, 52.1)),\#(feature(i * 10 + 5, 52.2))]}"#
                let posted = try await LoopbackHTTP.fetch(
                    "POST", "/api/v1/points" + way.query, port: port,
                    headers: way.headers + [("Content-Type", "application/json")], body: body)
                #expect(posted.status == 200, "\(posted.status) \(posted.text)")
                let answer = try JSONSerialization.jsonObject(with: Data(posted.body)) as? [String: Any]
                let rows = try #require(answer?["data"] as? [[String: Any]], "\(posted.text)")
                #expect(rows.count == 2)
                #expect(rows.allSatisfy { Set($0.keys) == ["id", "timestamp", "longitude", "latitude"] })
                #expect(
                    rows.first?["timestamp"] as? Int == 1_714_557_600 + i * 10
                        && rows.first?["latitude"] as? Double == 52.1)
                let answered = rows.compactMap { $0["id"] as? Int }
                #expect(answered.count == 2 && Set(answered).count == 2, "integer ids: \(rows)")
                if ids.count < 4 {
                    ids += answered
                } else {
                    #expect(answered == Array(ids[2..<4]), "the same rows again")
                }
            }

            // GET /api/v1/points: the serializer's keys, strings where Dawarich has strings, and the page headers.
            for way in [keyInURL, keyInHeader] {
                let read = try await LoopbackHTTP.fetch(
                    "GET", "/api/v1/points" + (way.query.isEmpty ? "?" : way.query + "&") + "per_page=3&order=asc",
                    port: port, headers: way.headers)
                #expect(read.status == 200, "\(read.status) \(read.text)")
                #expect(read.header("X-Current-Page") == "1" && read.header("X-Total-Pages") == "2")
                let points = try #require(try JSONSerialization.jsonObject(with: Data(read.body)) as? [[String: Any]])
                #expect(points.count == 3)
                #expect(points.compactMap { $0["id"] as? Int } == Array(ids.prefix(3)), "the ids the POSTs answered")
                let point = try #require(points.first)
                #expect(
                    Self.pointKeys.subtracting(point.keys).isEmpty, "missing: \(Self.pointKeys.subtracting(point.keys))"
                )
                #expect(point["latitude"] as? String == "52.1" && point["longitude"] as? String == "5.1")
                #expect(point["velocity"] as? String == "2.5" && point["timestamp"] as? Int == 1_714_557_600)
                #expect(point["lonlat"] as? String == "POINT (5.1 52.1)" && point["geodata"] is [String: Any])
                #expect(
                    point["in_regions"] is [Any] && point["inrids"] is [Any] && point["tracker_id"] as? String == "dw")
            }

            // GET /api/v1/stats: StatsSerializer's keys.
            for way in [keyInURL, keyInHeader] {
                let stats = try await LoopbackHTTP.fetch(
                    "GET", "/api/v1/stats" + way.query, port: port, headers: way.headers)
                #expect(stats.status == 200, "\(stats.status) \(stats.text)")
                let totals = try #require(try JSONSerialization.jsonObject(with: Data(stats.body)) as? [String: Any])
                #expect(
                    Set(totals.keys) == [
                        "totalDistanceKm", "totalPointsTracked", "totalReverseGeocodedPoints", "totalCountriesVisited",
                        "totalCitiesVisited", "yearlyStats",
                    ])
                #expect(totals["totalPointsTracked"] as? Int == 4)
                let year = try #require((totals["yearlyStats"] as? [[String: Any]])?.first)
                #expect(
                    Set(year.keys) == [
                        "year", "totalDistanceKm", "totalCountriesVisited", "totalCitiesVisited", "monthlyDistanceKm",
                    ])
                #expect((year["monthlyDistanceKm"] as? [String: Int])?.keys.sorted().count == 12)
                #expect((year["monthlyDistanceKm"] as? [String: Int])?["may"] != nil)
            }

            // Without the key, or with a wrong one: 401 and `{"error": ...}`, as Dawarich answers.
            for (path, headers) in [
                ("/api/v1/points", [(String, String)]()), ("/api/v1/stats?api_key=wrong", []),
                ("/api/v1/points", [("Authorization", "Bearer wrong")]),
            ] {
                let refused = try await LoopbackHTTP.fetch("GET", path, port: port, headers: headers)
                let answer = try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any]
                #expect(
                    refused.status == 401 && answer?["error"] is String, "\(path): \(refused.status) \(refused.text)")
            }
            #expect(!serve.stderr.contains(Self.token), "the api_key never reaches the log")
        }
    }
}
