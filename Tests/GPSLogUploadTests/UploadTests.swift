// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogTestSupport
import NIOCore
import Testing

@testable import GPSLogStore

/// `gpslog serve` running in the background on a free loopback port.
final class ServeProcess {
    let process: BackgroundGPSLog
    let url: String
    let database: String

    init(folder: String, token: String?) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        database = folder + "/received.sqlite"
        let process = try BackgroundGPSLog(
            ["serve", "--listen", "127.0.0.1:0", "--verbose"] + (token.map { ["--token", $0] } ?? []),
            database: database,
            folder: folder)
        self.process = process
        var found: String?
        _ = waitUntil(timeout: 30) {
            found = process.stdout.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init)
            return found != nil
        }
        url = try #require(found, "serve did not start: \(process.stderr)")
    }

    /// (time in ms, latitude, longitude) of every entry received, in time order.
    func points() throws -> [Point] { try UploadTests.points(database, receiver: true) }
}

/// A point as the wire carries it: time in ms, coordinates to 7 decimals (about 1 cm; what Overland sends).
struct Point: Hashable {
    var time: Int64
    var latitude: Int64
    var longitude: Int64
    init(time: Int64, latitude: Double, longitude: Double) {
        self.time = time
        self.latitude = Int64((latitude * 1e7).rounded())
        self.longitude = Int64((longitude * 1e7).rounded())
    }
}

@Suite(.ownThreads, .serialized)
struct UploadTests {
    static let token = "s3cret-token-for-tests"

    /// The track points of every session in `db` (or only received sessions), in time order.
    static func points(_ db: String, receiver: Bool = false) throws -> [Point] {
        let store = try Store(path: db)
        defer { store.close() }
        let s = try store.database.makeStatement(
            """
            SELECT TimeStamp, Latitude, Longitude FROM Entries JOIN Sessions ON Sessions.ID = Entries.Session
            WHERE Marked = 0 AND IsHeadingChanged = 0 \(receiver ? "AND Receiver IS NOT NULL" : "") ORDER BY TimeStamp
            """)
        var out: [Point] = []
        while try s.step() {
            out.append(Point(time: s.int64(at: 0)!, latitude: s.double(at: 1)!, longitude: s.double(at: 2)!))
        }
        return out
    }

    /// A database holding the sample as session "Sail" (mode boat, so batches carry Overland's trip).
    func sampleDatabase(_ dir: String) throws -> String {
        let db = dir + "/gpslog.sqlite"
        let r = try runGPSLog(["import", "--sample", "--name", "Sail", "--mode", "boat"], database: db)
        try #require(r.status == 0, "\(r.stderr)")
        return db
    }

    @Test func uploadToServeDeliversExactlyTheSessionsPoints() throws {
        try withTemporaryDirectory { dir in
            let db = try sampleDatabase(dir)
            let serve = try ServeProcess(folder: dir + "/serve", token: Self.token)
            let expected = try Self.points(db)
            #expect(expected.count > 100)

            let r = try runGPSLog(
                ["upload", "Sail", "--url", serve.url, "--token", Self.token, "--batch-size", "25", "--json"],
                database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stdout.contains(Self.token) && !r.stderr.contains(Self.token))
            #expect(try serve.points() == expected)
            #expect(r.stdout.contains("\"batches\" : \((expected.count + 24) / 25)"), "\(r.stdout)")

            // A second run sends nothing: everything was confirmed.
            let again = try runGPSLog(["upload", "Sail", "--url", serve.url, "--token", Self.token], database: db)
            #expect(
                again.status == 0
                    && again.stdout.contains("0 points in 0 batches (\(expected.count) confirmed before)"),
                "\(again.stdout)")
            #expect(try serve.points() == expected)

            // The received session is the device's trip, with the sender's mode.
            let listed = try runGPSLog(["sessions"], database: serve.database)
            #expect(listed.stdout.contains("trip 2018-08-20T09:47:36Z"), "\(listed.stdout)")

            // A refusal (4xx) stops at once with the server's message, and the token is not in it.
            let other = dir + "/other.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Sail"], database: other).status == 0)
            let wrong = try runGPSLog(
                ["upload", "Sail", "--url", serve.url, "--token", "not-the-right-token"], database: other)
            #expect(
                wrong.status == 1 && wrong.stderr.contains("HTTP 401")
                    && wrong.stderr.contains("missing or wrong token"), "\(wrong.stderr)")
            #expect(!wrong.stderr.contains("not-the-right-token"))

            // OwnTracks HTTP: one message per POST, the device from X-Limit-U/X-Limit-D.
            let owntracks = try runGPSLog(
                [
                    "upload", "Sail", "--url", serve.url + "pub", "--token", Self.token, "--format", "owntracks",
                    "--device-id", "rob/boat",
                ], database: other)
            #expect(owntracks.status == 0, "\(owntracks.stderr)")
            let listedAgain = try runGPSLog(["sessions", "--json"], database: serve.database)
            #expect(listedAgain.stdout.contains("rob/boat"), "\(listedAgain.stdout)")
            // OwnTracks carries whole seconds; the sample's fixes are a second apart, so all arrive.
            #expect(try serve.points().count == 2 * expected.count)
        }
    }

    @Test func aFlakyServerGetsEveryPointAndNothingIsConfirmedEarly() async throws {
        let server = FlakyOverlandServer(failureRate: 0.4, slowDelay: .milliseconds(1500))
        try await server.start()
        try withTemporaryDirectory { dir in
            let db = try sampleDatabase(dir)
            let expected = try Self.points(db)
            let r = try runGPSLog(
                [
                    "upload", "Sail", "--url", server.url + "?lat=%LAT&lon=%LON&ts=%TS&bat=%BAT&token=" + Self.token,
                    "--token", Self.token,
                    "--batch-size", "10", "--timeout", "1", "--max-attempts", "40", "--json",
                ],
                database: db, environment: ["GPSLOG_RETRY_DELAY": "0.02"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stdout.contains(Self.token) && !r.stderr.contains(Self.token))
            let answers = Set(server.log.map(\.answer))
            #expect(answers.count >= 4, "the server should have misbehaved in several ways: \(answers)")
            // Every point arrived in a batch the server confirmed.
            let stamps = Set(expected.map { Timestamp(milliseconds: $0.time).iso8601() })
            #expect(Set(server.confirmed) == stamps)
            // The client moved on only after a confirmation: every batch it counted as sent was answered ok (a slow
            // ok that came after the client gave up is the only way a batch is sent twice).
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession("Sail")
            let progress = try store.database.scalar("SELECT Sent FROM Uploads WHERE Session = ?", [.text(session.id)])?
                .int64
            #expect(progress == Int64(expected.count))
            #expect(server.log.allSatisfy { $0.authorization == "Bearer " + Self.token })
            // Overland's URL parameters come from the latest point; unknown values are -1.
            let last = try #require(expected.last)
            let uri = try #require(server.log.first?.uri)
            #expect(
                uri.contains("lat=\(String(format: "%.7f", Double(last.latitude) / 1e7))&lon=")
                    && uri.contains("&ts=\(last.time / 1000)&bat=-1"), "\(uri)")
            // Overland's `current` rides along while more than two batches wait, and not at the end.
            #expect(server.log.first?.hasCurrent == true && server.log.last?.hasCurrent == false)
        }
        await server.stop()
    }

    @Test func aKilledUploaderResumesWithAtMostOneBatchSentTwice() async throws {
        let server = FlakyOverlandServer(failureRate: 0, delay: .milliseconds(150))
        try await server.start()
        try withTemporaryDirectory { dir in
            let db = try sampleDatabase(dir)
            let expected = try Self.points(db)
            let args = ["upload", "Sail", "--url", server.url, "--batch-size", "10"]
            let first = try BackgroundGPSLog(args, database: db, folder: dir)
            #expect(waitUntil(timeout: 30) { server.confirmed.count >= 40 })
            kill(first.process.processIdentifier, SIGKILL)
            #expect(first.wait(timeout: 10) != nil)
            #expect(server.received.count < expected.count, "the upload finished before the kill")

            let rest = try runGPSLog(args, database: db)
            #expect(rest.status == 0, "\(rest.stderr)")
            #expect(rest.stdout.contains("confirmed before"), "\(rest.stdout)")
            let stamps = expected.map { Timestamp(milliseconds: $0.time).iso8601() }
            #expect(Set(server.received) == Set(stamps))
            #expect(server.received.count - stamps.count <= 10, "more than one batch was sent twice")
        }
        await server.stop()
    }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func serveAcceptsRealPayloadsAndRejectsBadOnesWithoutChangingAnything() async throws {
        try await withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir, token: Self.token)
            func post(
                _ body: String, path: String = "",
                headers: [(String, String)] = [("Authorization", "Bearer " + Self.token)]
            ) async throws -> (Int, String) {
                var request = HTTPClientRequest(url: serve.url + path)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")  // as phones send it
                for (k, v) in headers { request.headers.add(name: k, value: v) }
                request.body = .bytes(ByteBuffer(string: body))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            let overland = try String(
                contentsOfFile: TestPaths.sharedData + "/payloads/overland-geodata.json", encoding: .utf8)
            #expect(try await post(overland) == (200, #"{"result":"ok"}"#))
            // The second feature has no geometry (an app event): skipped. Sent twice: stored once.
            #expect(try serve.points().count == 1)
            #expect(try await post(overland, path: "overland") == (200, #"{"result":"ok"}"#))
            #expect(try serve.points().count == 1)

            // OwnTracks HTTP mode: the Recorder's lines are the payloads; Basic auth carries the token.
            let basic = "Basic " + Data("rob:\(Self.token)".utf8).base64EncodedString()
            var locationTimes = Set<String>()
            for file in ["owntracks-2024-03.rec", "owntracks-2023-02_old.rec"] {
                let lines = try String(contentsOfFile: TestPaths.sharedData + "/payloads/" + file, encoding: .utf8)
                    .split(whereSeparator: \.isNewline)
                for line in lines {
                    guard let brace = line.firstIndex(of: "{") else { continue }
                    let json = String(line[brace...])
                    if json.contains(#""_type":"location""#), let tst = json.firstRange(of: /"tst":\d+/),
                        let lat = json.firstRange(of: /"lat":[-0-9.]+/), let lon = json.firstRange(of: /"lon":[-0-9.]+/)
                    {
                        locationTimes.insert(String(json[tst]) + String(json[lat]) + String(json[lon]))
                    }
                    let (status, body) = try await post(
                        json, path: "pub",
                        headers: [("Authorization", basic), ("X-Limit-U", "rob"), ("X-Limit-D", "phone")])
                    #expect(status == 200 && body == "[]", "\(status) \(body)")
                }
            }
            let stored = try serve.points()
            // One session per device, one location per time and place: the files repeat a few, stored once.
            #expect(locationTimes.count > 10 && stored.count == 1 + locationTimes.count)

            // Bad payloads: a 4xx with a JSON error naming the field, and nothing stored.
            let before = stored
            let bad: [(String, Int, String)] = [
                ("{not json", 400, "not JSON"),
                (
                    #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,95]},"properties":{"timestamp":"2026-01-01T00:00:00Z"}}]}"#,
                    422, "geometry.coordinates"
                ),
                (
                    #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,52.1]},"properties":{"timestamp":"2026-01-01T00:00:00Z"}},{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,52.1]},"properties":{"timestamp":"yesterday"}}]}"#,
                    422, "locations[1].properties.timestamp"
                ),
                (#"{"_type":"location","lat":52.1,"lon":5.3}"#, 422, "tst"),
                (#"{"hello":"world"}"#, 400, "neither an Overland batch"),
            ]
            for (body, status, words) in bad {
                let (s, text) = try await post(body)
                #expect(s == status && text.contains(words), "\(s) \(text)")
                #expect(text.hasPrefix(#"{"error":"#))
            }
            let (unauthorized, _) = try await post(overland, headers: [("Authorization", "Bearer nope")])
            #expect(unauthorized == 401)
            let (noToken, _) = try await post(overland, headers: [])
            #expect(noToken == 401)
            #expect(try serve.points() == before)
        }
    }

    @Test(.enabled(if: GPSFake.isAvailable && TestPaths.hasSharedData, "needs gpsd, gpsfake and ../shared/data"))
    func liveSendingDuringAGPSDReplayReachesServe() throws {
        try withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir + "/serve", token: Self.token)
            let gpsd = try GPSFake(log: TestPaths.sharedData + "/nmea/bundg_zeus_9.log", cycle: 0.02)
            defer { gpsd.stop() }
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--name", "Live", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--send", serve.url,
                    "--token", Self.token,
                    "--send-interval", "1s", "--batch-size", "20", "--geocode", "off",
                ],
                database: db, folder: dir)
            // Points reach the server while the recording goes on.
            #expect(try waitUntil(timeout: 60) { try serve.points().count >= 10 }, "\(recorder.stderr)")
            let now = try runGPSLog(["send-now"], database: db)
            #expect(now.status == 0 && now.stdout.hasPrefix("Sent to \(serve.url)"), "\(now.stdout) \(now.stderr)")
            let status = try runGPSLog(["status"], database: db)
            #expect(status.stdout.contains("Sending:"), "\(status.stdout)")
            #expect(try runGPSLog(["stop"], database: db).status == 0)
            #expect(recorder.wait(timeout: 20) == 0)
            #expect(!recorder.stderr.contains(Self.token))
            // At the end everything recorded has arrived, once.
            #expect(try serve.points() == Self.points(db))
        }
    }
}
