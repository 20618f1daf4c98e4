// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

// The requests below are built as the apps send them, from their sources:
// - Traccar Client for Android: traccar/traccar-client-android
//   app/src/main/java/org/traccar/client/ProtocolFormatter.java (`id`, `timestamp`, `lat`, `lon`, `speed`, `bearing`,
//   `altitude`, `accuracy`, `batt`, then `charge`, `mock` and `alarm` when they apply) as the URL of a POST.
// - The osmand protocol's decoder: traccar/traccar src/main/java/org/traccar/protocol/OsmAndProtocolDecoder.java
//   (a key it does not know is kept as the position's attribute, `position.set(key, value)`; so are
//   `driverUniqueId` and the like a user adds to the URL).
// - Traccar Client 9's JSON: traccar/traccar src/main/java/org/traccar/protocol/OsmAndProtocolDecoder.java
//   (`decodeJson`: `location.extras`' members, `event`, `odometer` and `is_moving` kept as attributes).

/// The keys a Traccar client sends that gpslog has no field for are kept as text attributes, bounded, and read back
/// (the Dawarich-shaped JSON API, `export --format geojson`), escaped, against a real `serve` on a loopback port.
@Suite(.ownThreads, .serialized) struct ServeTraccarAttributesTests {
    static let token = "traccar-attributes-token-0123456789"
    /// 2024-05-01T10:00:00Z.
    static let t0: Int64 = 1_714_557_600

    @Test(.timeLimit(.minutes(5)))
    func traccarsOtherKeysAreKeptAndComeBackOut() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let (serve, port) = try await LoopbackHTTP.serve(
                ["--token", Self.token, "--verbose"], database: db, folder: dir + "/serve")
            defer { kill(serve.process.processIdentifier, SIGKILL) }
            // Traccar Client for Android, a mock location with its alarm, and two keys the user added to the URL
            // (one of them hostile: quotes, a backslash, markup and a newline).
            let hostile = "<b>\"x\"\\y\nz"
            let encoded = try #require(hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let url =
                "/?id=tc-android&timestamp=\(Self.t0)&lat=52.1&lon=5.1&speed=0.0&bearing=0.0&altitude=1.0"
                + "&accuracy=5.0&batt=70.0&mock=true&alarm=sos&driverUniqueId=4711&note=\(encoded)&token=\(Self.token)"
            let answer = try await LoopbackHTTP.fetch("POST", url, port: port)
            #expect(answer.status == 200 && answer.body.isEmpty, "\(answer.status) \(answer.text)")
            // Traccar Client 9's JSON with `extras`.
            let json =
                #"{"location":{"timestamp":"2024-05-01T10:01:00.000Z","coords":{"latitude":52.2,"longitude":5.2,"#
                + #""accuracy":4.5,"speed":1.5,"heading":90,"altitude":7.5},"is_moving":true,"odometer":1200.5,"#
                + #""event":"motionchange","battery":{"level":0.5,"is_charging":true},"activity":{"type":"walking"},"#
                + #""extras":{"trip":"work","count":3,"ok":false}},"device_id":"tc-android"}"#
            let posted = try await LoopbackHTTP.fetch(
                "POST", "/?token=\(Self.token)", port: port, headers: [("Content-Type", "application/json")],
                body: json)
            #expect(posted.status == 200, "\(posted.status) \(posted.text)")

            let expected: [[String: String]] = [
                ["mock": "true", "alarm": "sos", "driverUniqueId": "4711", "note": hostile],
                [
                    "trip": "work", "count": "3", "ok": "false", "event": "motionchange", "odometer": "1200.5",
                    "motion": "true",
                ],
            ]
            // In the store.
            let store = try Store(path: db)
            let session = try #require(try store.sessions().first { $0.name == "tc-android" })
            let entries = try store.entries(of: session.id).all()
            store.close()
            #expect(entries.map { $0.attributes ?? [:] } == expected)

            // The JSON API's points.
            let read = try await LoopbackHTTP.fetch(
                "GET", "/api/v1/points?order=asc", port: port, headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(read.status == 200, "\(read.status) \(read.text)")
            let points = try #require(try JSONSerialization.jsonObject(with: Data(read.body)) as? [[String: Any]])
            #expect(points.map { $0["attributes"] as? [String: String] ?? [:] } == expected, "\(read.text)")

            // `export --format geojson`: per point, as coordTimes are.
            let exported = try await runGPSLogAsync(
                ["export", session.id, "--format", "geojson", "-o", "-"], database: db, folder: dir)
            #expect(exported.status == 0, "\(exported.stderr)")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
            let features = try #require(document["features"] as? [[String: Any]])
            let track = try #require(
                features.first { ($0["properties"] as? [String: Any])?["kind"] as? String == "track" })
            let properties = try #require(track["properties"] as? [String: Any])
            #expect(properties["coordAttributes"] as? [[String: String]] == expected, "\(exported.stdout)")
            #expect(!exported.stdout.contains("<b>\"x"), "the quote is escaped in the file")

            // Over a bound (a key too long, a value too long, one key too many, a nested extras value): the location
            // is stored without that key, and the log says which (a client that resends in order would otherwise
            // be stuck behind it).
            let long = String(repeating: "k", count: 65)
            let many = (0..<33).map { "x\($0)=1" }.joined(separator: "&")
            let bad: [(String, String)] = [
                ("\(long)=1", "kkkk"), ("note=" + String(repeating: "v", count: 257), "'note'"), (many, "'x"),
            ]
            for (i, (query, key)) in bad.enumerated() {
                let taken = try await LoopbackHTTP.fetch(
                    "GET",
                    "/?id=tc-android&lat=52.3&lon=5.3&timestamp=\(Self.t0 + 120 + Int64(i))&\(query)&token=\(Self.token)",
                    port: port)
                #expect(taken.status == 200, "\(key): \(taken.status) \(taken.text)")
                #expect(
                    await waitUntilAsync(timeout: 30) {
                        serve.stderr.contains("without") && serve.stderr.contains(key)
                    },
                    "\(serve.stderr)")
            }
            let nested = json.replacingOccurrences(of: #""count":3"#, with: #""count":{"deep":1}"#)
                .replacingOccurrences(of: "10:01:00", with: "10:09:00")
            let takenNested = try await LoopbackHTTP.fetch(
                "POST", "/?token=\(Self.token)", port: port, headers: [("Content-Type", "application/json")],
                body: nested)
            #expect(takenNested.status == 200, "\(takenNested.status) \(takenNested.text)")
            #expect(await waitUntilAsync(timeout: 30) { serve.stderr.contains("'count' (an extras value") })
            let again = try Store(path: db)
            let stored = try again.entries(of: session.id).all()
            again.close()
            #expect(stored.count == 6, "\(stored.count) stored")
            let kept = stored.dropFirst(2).map { $0.attributes ?? [:] }
            #expect(kept[0].isEmpty && kept[1].isEmpty, "\(kept)")
            #expect(kept[2].count == 32 && kept[2]["x32"] == nil, "\(kept[2].count) kept")
            #expect(kept[3]["count"] == nil && kept[3]["trip"] == "work", "\(kept[3])")
            #expect(!serve.stderr.contains(Self.token), "the token never reaches the log")
            #expect(!serve.stderr.contains("<b>"), "nothing sent reaches the log unescaped")

            // Export, import into a fresh database, export again: the same bytes, the attributes read back from
            // `coordAttributes` (32 keys on one point, the hostile value, a point with none).
            let first = dir + "/first.geojson"
            let second = dir + "/second.geojson"
            let out = try await runGPSLogAsync(
                ["export", session.id, "--format", "geojson", "-o", first], database: db, folder: dir)
            #expect(out.status == 0, "\(out.stderr)")
            let fresh = dir + "/fresh.sqlite"
            let imported = try await runGPSLogAsync(["import", first], database: fresh, folder: dir)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(!imported.stderr.contains("left out"), "\(imported.stderr)")
            let back = try await runGPSLogAsync(
                ["export", session.id, "--format", "geojson", "-o", second], database: fresh, folder: dir)
            #expect(back.status == 0, "\(back.stderr)")
            let a = try Data(contentsOf: URL(fileURLWithPath: first))
            let b = try Data(contentsOf: URL(fileURLWithPath: second))
            #expect(String(decoding: a, as: UTF8.self).contains("\"x31\":\"1\""), "the 32 keys are in the file")
            #expect(a == b, "\(String(decoding: a, as: UTF8.self))\n---\n\(String(decoding: b, as: UTF8.self))")
            let reread = try Store(path: fresh)
            let readBack = try reread.entries(of: session.id).all()
            reread.close()
            #expect(readBack.map(\.attributes) == stored.map(\.attributes))
        }
    }
}
