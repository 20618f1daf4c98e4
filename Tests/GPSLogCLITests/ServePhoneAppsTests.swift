// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

// The requests below are built as the apps send them, from their sources:
// - Traccar Client / OsmAnd (the "osmand" protocol): traccar/traccar
//   src/main/java/org/traccar/protocol/OsmAndProtocolDecoder.java (the keys, `speed` in knots, `timestamp` in
//   seconds below 2^31 else milliseconds, or a date; the answer 200 without a body).
// - Traccar Client 9's JSON (transistorsoft background-geolocation's location): traccar/traccar
//   src/main/java/org/traccar/protocol/LacakProtocolDecoder.java (`device_id`, `location.timestamp`,
//   `location.coords.{latitude,longitude,accuracy,speed,heading,altitude}`, `location.battery`).
// - GPSLogger for Android: mendhak/gpslogger
//   gpslogger/src/main/java/com/mendhak/gpslogger/senders/customurl/CustomUrlManager.java (the placeholders, replaced
//   case-insensitively in that order, values by String.valueOf, %SPD in m/s, %TIMESTAMP in seconds) and
//   loggers/customurl/CustomUrlWorker.java (a POST body is sent without a Content-Type unless the user adds one).
// - Dawarich: Freika/dawarich app/controllers/api/v1/points_controller.rb (start_at, end_at, page, per_page, order;
//   X-Current-Page, X-Total-Pages), app/controllers/api_controller.rb (`api_key`), app/serializers/stats_serializer.rb.

/// `gpslog serve` takes what the popular phone apps send, end to end against a real `serve` on a loopback port.
@Suite(.ownThreads, .serialized) struct ServePhoneAppsTests {
    static let token = "phone-apps-token-0123456789"
    /// 2024-05-01T10:00:00Z.
    static let t0: Int64 = 1_714_557_600

    /// The track points of the session of `device`, read from the database.
    static func stored(_ db: String, device: String) throws -> [Entry] {
        let store = try Store(path: db)
        defer { store.close() }
        guard let session = try store.sessions().first(where: { $0.name == device }) else { return [] }
        return try store.entries(of: session.id).all()
    }

    static func serve(_ dir: String, token: Bool = true) async throws -> (BackgroundGPSLog, Int, String) {
        let db = dir + "/serve.sqlite"
        let (serve, port) = try await LoopbackHTTP.serve(
            (token ? ["--token", Self.token] : []) + ["--verbose"], database: db, folder: dir + "/serve")
        return (serve, port, db)
    }

    // MARK: - gpslog to gpslog

    /// `upload --url osmand://` (what `record --send osmand://` sends) into gpslog's own `serve`: the recording's
    /// track arrives whole, once, with its times, positions and speeds, and a second upload adds nothing.
    @Test(.timeLimit(.minutes(5)))
    func gpslogsOwnOsmAndSenderIsStoredOnce() async throws {
        try await withTemporaryDirectory { dir in
            let (serve, port, db) = try await Self.serve(dir)
            defer { kill(serve.process.processIdentifier, SIGKILL) }
            let source = dir + "/source.sqlite"
            let imported = try await runGPSLogAsync(["import", "--sample"], database: source, folder: dir)
            #expect(imported.status == 0, "\(imported.stderr)")
            let sent = try Store(path: source)
            let session = try #require(try sent.sessions().first)
            let track = try sent.entries(of: session.id).all().filter { !$0.marked && !$0.isHeadingChanged }
            sent.close()
            for _ in 0..<2 {
                let upload = try await runGPSLogAsync(
                    [
                        "upload", session.id, "--url", "osmand://127.0.0.1:\(port)", "--token", Self.token,
                        "--device-id", "rob-pi",
                    ], database: source, folder: dir)
                #expect(upload.status == 0, "\(upload.stdout)\(upload.stderr)")
            }
            let got = try Self.stored(db, device: "rob-pi")
            try #require(track.count > 20)
            // One location a second at most: the protocol's time is whole seconds.
            let expected = track.reduce(into: [Entry]()) { kept, e in
                if kept.last.map({ $0.time.milliseconds / 1000 }) != e.time.milliseconds / 1000 { kept.append(e) }
            }
            #expect(got.map { $0.time.milliseconds / 1000 } == expected.map { $0.time.milliseconds / 1000 })
            for (g, e) in zip(got, expected) {
                #expect(abs(g.latitude - e.latitude) < 1e-7 && abs(g.longitude - e.longitude) < 1e-7, "\(g) \(e)")
                if let speed = e.speed { #expect(abs((g.speed ?? -1) - speed) < 0.01, "\(g) \(e)") }
            }
            #expect(!serve.stderr.contains(Self.token), "the token stays out of serve's log")
        }
    }

    // MARK: - Traccar Client / OsmAnd

    @Test(.timeLimit(.minutes(5)))
    func traccarClientsURLAndFormAreStoredOnce() async throws {
        try await withTemporaryDirectory { dir in
            let (serve, port, db) = try await Self.serve(dir)
            // Traccar Client (Android, up to 8.x): a POST with the keys in the URL, no body.
            let url =
                "/?id=881234&timestamp=\(Self.t0)&lat=52.1&lon=5.1&speed=10.0&bearing=90.0&altitude=12.5"
                + "&accuracy=4.0&batt=80.0&charge=true&token=\(Self.token)"
            for _ in 0..<2 {
                let answer = try await LoopbackHTTP.fetch("POST", url, port: port)
                #expect(answer.status == 200 && answer.body.isEmpty, "\(answer.status) \(answer.text)")
            }
            var entries = try Self.stored(db, device: "881234")
            #expect(entries.count == 1, "sent twice, stored once")
            let e = try #require(entries.first)
            #expect(e.latitude == 52.1 && e.longitude == 5.1 && e.time.milliseconds == Self.t0 * 1000)
            #expect(abs((e.speed ?? 0) - 10 * 1852 / 3600) < 1e-9, "knots stored as m/s: \(e.speed ?? -1)")
            #expect(e.altitude == 12.5 && e.course == 90 && e.horizontalAccuracy == 4 && e.batteryLevel == 0.8)
            #expect(e.batteryState == .charging)

            // OsmAnd's GET on another path, `location=` and a milliseconds time; a form body with a date.
            let get = try await LoopbackHTTP.fetch(
                "GET",
                "/track?deviceid=881234&location=52.2,5.2&timestamp=\((Self.t0 + 60) * 1000)&token=\(Self.token)",
                port: port)
            #expect(get.status == 200 && get.body.isEmpty, "\(get.status) \(get.text)")
            let form = try await LoopbackHTTP.fetch(
                "POST", "/?token=\(Self.token)", port: port,
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "id=881234&timestamp=2024-05-01+10%3A02%3A00&lat=52.3&lon=5.3&hdop=1.5&driverUniqueId=x")
            #expect(form.status == 200, "\(form.status) \(form.text)")
            entries = try Self.stored(db, device: "881234")
            #expect(entries.map(\.time.milliseconds) == [0, 60, 120].map { (Self.t0 + $0) * 1000 })
            #expect(entries.last?.hdop == 1.5 && entries[1].latitude == 52.2)

            // Bad values: 422 naming the key, nothing stored.
            let bad: [(String, String)] = [
                ("lat=91&lon=5", "lat"), ("lat=52&lon=5&timestamp=yesterday", "timestamp"),
                ("lat=52&lon=5&timestamp=4102444800", "timestamp"), ("lat=52&lon=5&speed=fast", "speed"),
                ("location=52", "location"), ("lat=52&lon=5&batt=180", "batt"),
                ("lat=52&lon=5&" + (0..<70).map { "k\($0)=1" }.joined(separator: "&"), "parameters"),
            ]
            for (query, key) in bad {
                let answer = try await LoopbackHTTP.fetch(
                    "GET", "/?id=881234&\(query)&token=\(Self.token)", port: port)
                #expect(answer.status == 422 && answer.text.contains(key), "\(query): \(answer.status) \(answer.text)")
                if key == "lat" {
                    // The value quoted alone, the reason after it.
                    #expect(answer.text.contains("lat '91' is not valid (not in -90.0...90.0)"), "\(answer.text)")
                }
            }
            // A fix the app marks not valid is answered 200 (the app must not resend it) and not stored.
            let invalid = try await LoopbackHTTP.fetch(
                "GET", "/?id=881234&lat=52.5&lon=5.5&timestamp=\(Self.t0 + 300)&valid=false&token=\(Self.token)",
                port: port)
            #expect(invalid.status == 200)
            // No token or a wrong one: 401, and the token is not in the log.
            for query in ["", "&token=wrong"] {
                let answer = try await LoopbackHTTP.fetch("GET", "/?id=881234&lat=52.4&lon=5.4\(query)", port: port)
                #expect(answer.status == 401, "\(query): \(answer.status)")
            }
            #expect(try Self.stored(db, device: "881234").count == 3)
            #expect(!serve.stderr.contains(Self.token), "the token never reaches the log")

            // A GET without those keys is still the web view's (here: its login, the serve has a token).
            let page = try await LoopbackHTTP.fetch("GET", "/?name=x", port: port)
            #expect(page.status == 303 && page.header("Location") == "/login", "\(page.status) \(page.text)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func traccarClient9JSONIsStoredOnce() async throws {
        try await withTemporaryDirectory { dir in
            let (serve, port, db) = try await Self.serve(dir)
            // Traccar Client 9 posts to its server URL (the token can only be in it).
            func body(_ latitude: String) -> String {
                #"{"location":{"timestamp":"2024-05-01T10:00:00.000Z","coords":{"latitude":\#(latitude),"#
                    + #""longitude":5.1,"accuracy":4.5,"speed":3.25,"heading":180.5,"altitude":7.5},"#
                    + #""is_moving":true,"odometer":12.5,"event":"motionchange","#
                    + #""battery":{"level":0.55,"is_charging":false},"activity":{"type":"walking"},"extras":{}},"#
                    + #""device_id":"tc9"}"#
            }
            for _ in 0..<2 {
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/?token=\(Self.token)", port: port, headers: [("Content-Type", "application/json")],
                    body: body("52.1"))
                #expect(answer.status == 200 && answer.body.isEmpty, "\(answer.status) \(answer.text)")
            }
            let entries = try Self.stored(db, device: "tc9")
            #expect(entries.count == 1)
            let e = try #require(entries.first)
            #expect(e.latitude == 52.1 && e.time.milliseconds == Self.t0 * 1000 && e.speed == 3.25)
            #expect(e.altitude == 7.5 && e.course == 180.5 && e.batteryLevel == 0.55 && e.motion == ["walking"])
            let bad = try await LoopbackHTTP.fetch(
                "POST", "/?token=\(Self.token)", port: port, headers: [("Content-Type", "application/json")],
                body: body("100"))
            #expect(bad.status == 422 && bad.text.contains("location.coords"), "\(bad.status) \(bad.text)")
            #expect(serve.process.isRunning, "\(serve.stderr)")
        }
    }

    // MARK: - GPSLogger's custom URL

    /// GPSLogger's substitution (`CustomUrlManager.getFormattedTextblock`): each placeholder in its order,
    /// case-insensitively, by the value's Java `String.valueOf`.
    static func gpsLogger(_ template: String, time: Int64) -> String {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let values: [(String, String)] = [
            ("%lat", "52.0907"), ("%lon", "5.1214"), ("%sat", "9"), ("%desc", ""), ("%alt", "11.5"), ("%acc", "3.9"),
            ("%dir", "271.5"), ("%prov", "gps"), ("%spd", "4.25"), ("%timestamp", String(time)),
            ("%timeoffset", "2024-05-01T12:00:00.000+02:00"),
            ("%time", iso.string(from: Date(timeIntervalSince1970: Double(time)))), ("%date", "2024-05-01"),
            ("%starttimestamp", String(Self.t0)), ("%batt", "77.0"), ("%aid", "9774d56d682e549c"),
            ("%ser", "ZY2234ABCD"), ("%act", ""), ("%filename", "20240501"), ("%profile", "Default+Profile"),
            ("%hdop", "0.9"), ("%vdop", ""), ("%pdop", ""), ("%dist", "0"),
        ]
        var text = template
        for (placeholder, value) in values {
            text = text.replacingOccurrences(of: placeholder, with: value, options: .caseInsensitive)
        }
        return text
    }

    /// What the docs tell GPSLogger users to type (docs/sending-receiving.md, verbatim).
    static let gpsLoggerURL =
        "/?id=%SER&lat=%LAT&lon=%LON&timestamp=%TIMESTAMP&altitude=%ALT&speed_mps=%SPD&bearing=%DIR&accuracy=%ACC"
        + "&batt=%BATT&hdop=%HDOP&sat=%SAT&token=TOKEN"
    static let gpsLoggerBody =
        "id=%SER&lat=%LAT&lon=%LON&timestamp=%TIMESTAMP&altitude=%ALT&speed_mps=%SPD&bearing=%DIR&accuracy=%ACC"
        + "&batt=%BATT&hdop=%HDOP&sat=%SAT"

    @Test(.timeLimit(.minutes(5)))
    func gpsLoggersURLAndBodyAreStoredOnce() async throws {
        try await withTemporaryDirectory { dir in
            let (serve, port, db) = try await Self.serve(dir)
            let get = Self.gpsLogger(
                Self.gpsLoggerURL.replacingOccurrences(of: "TOKEN", with: Self.token), time: Self.t0)
            let post = Self.gpsLogger(Self.gpsLoggerBody, time: Self.t0 + 30)
            for _ in 0..<2 {
                let a = try await LoopbackHTTP.fetch("GET", get, port: port)
                #expect(a.status == 200, "GET: \(a.status) \(a.text)")
                // HTTP Body set, Headers left empty: GPSLogger sends no Content-Type.
                let b = try await LoopbackHTTP.fetch("POST", "/?token=\(Self.token)", port: port, body: post)
                #expect(b.status == 200, "POST: \(b.status) \(b.text)")
            }
            let entries = try Self.stored(db, device: "ZY2234ABCD")
            #expect(entries.count == 2, "each sent twice, stored once")
            for (e, time) in zip(entries, [Self.t0, Self.t0 + 30]) {
                #expect(e.latitude == 52.0907 && e.longitude == 5.1214 && e.time.milliseconds == time * 1000)
                #expect(e.speed == 4.25, "%SPD is m/s, taken as it is by speed_mps")
                #expect(e.altitude == 11.5 && e.course == 271.5 && e.horizontalAccuracy == 3.9)
                #expect(e.batteryLevel == 0.77 && e.hdop == 0.9 && e.satellites == 9)
            }
            #expect(!serve.stderr.contains(Self.token), "the token in GPSLogger's URL never reaches the log")
        }
    }

    // MARK: - OsmAnd's online tracking

    /// The URL the README tells OsmAnd users to type (its "Phone apps" table, read from the file so the two agree).
    static func osmAndTemplate() throws -> String {
        let readme = try String(contentsOfFile: TestPaths.packageRoot + "/README.md", encoding: .utf8)
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| OsmAnd |") })
        let url = try #require(row.firstMatch(of: /`(http:\/\/HOST:8080\/\?[^`]+)`/)?.1)
        return String(url.dropFirst("http://HOST:8080".count))
    }

    /// OsmAnd's substitution (`LiveMonitoringHelper.getLiveUrl`, OsmAnd's source): `MessageFormat.format` of the
    /// URL with `{0}` latitude, `{1}` longitude, `{2}` the time in milliseconds, `{3}` the fix's accuracy in metres,
    /// `{4}` altitude, `{5}` speed in metres per second, `{6}` bearing, each a Java float's `toString`.
    static func osmAnd(_ template: String, milliseconds: Int64) -> String {
        let values = ["52.0907", "5.1214", String(milliseconds), "3.9", "11.5", "4.25", "271.5"]
        var text = template
        for (i, value) in values.enumerated() { text = text.replacingOccurrences(of: "{\(i)}", with: value) }
        return text
    }

    @Test(.timeLimit(.minutes(5)))
    func osmAndsOnlineTrackingAsTheReadmeSaysIsStoredOnce() async throws {
        try await withTemporaryDirectory { dir in
            let (serve, port, db) = try await Self.serve(dir)
            let template = try Self.osmAndTemplate()
                .replacingOccurrences(of: "NAME", with: "osmand-phone").replacingOccurrences(
                    of: "TOKEN", with: Self.token)
            // OsmAnd sends a GET; the same fix twice (a retry after a timeout) is stored once.
            for milliseconds in [Self.t0 * 1000, Self.t0 * 1000, (Self.t0 + 5) * 1000 + 250] {
                let a = try await LoopbackHTTP.fetch(
                    "GET", Self.osmAnd(template, milliseconds: milliseconds), port: port)
                #expect(a.status == 200, "\(a.status) \(a.text)")
            }
            let entries = try Self.stored(db, device: "osmand-phone")
            #expect(entries.map(\.time.milliseconds) == [Self.t0 * 1000, (Self.t0 + 5) * 1000 + 250])
            for e in entries {
                #expect(e.latitude == 52.0907 && e.longitude == 5.1214)
                #expect(e.speed == 4.25, "OsmAnd's {5} is m/s, taken as it is: \(e.speed ?? -1)")
                #expect(e.horizontalAccuracy == 3.9 && e.hdop == nil, "{3} is the accuracy in metres, not an HDOP")
                #expect(e.altitude == 11.5 && e.course == 271.5)
            }
            #expect(!serve.stderr.contains(Self.token))
        }
    }

    // MARK: - Web pages still cannot post

    @Test(.timeLimit(.minutes(5)))
    func aPageOfAnotherSiteCannotStoreALocationByFormOrURL() async throws {
        try await withTemporaryDirectory { dir in
            let form = "id=evil&lat=52.1&lon=5.1&timestamp=\(Self.t0)"
            let evil = ("Origin", "http://evil.example")
            let (serve, port, db) = try await Self.serve(dir + "/with")
            // With a token: a page's form (even one that knew the URL's token), a page's no-cors fetch, an image.
            let tries: [(String, String, [(String, String)], String, Int)] = [
                (
                    "POST", "/?token=\(Self.token)", [evil, ("Content-Type", "application/x-www-form-urlencoded")],
                    form, 403
                ),
                ("POST", "/", [evil, ("Content-Type", "application/x-www-form-urlencoded")], form, 403),
                ("POST", "/", [("Content-Type", "text/plain")], form, 401),
                ("GET", "/?\(form)", [("Sec-Fetch-Site", "cross-site")], "", 403),
                ("GET", "/?\(form)", [], "", 401),
            ]
            for (method, path, headers, body, expected) in tries {
                let answer = try await LoopbackHTTP.fetch(method, path, port: port, headers: headers, body: body)
                #expect(answer.status == expected, "\(method) \(path) \(headers): \(answer.status) \(answer.text)")
            }
            #expect(try Self.stored(db, device: "evil").isEmpty)
            #expect(serve.stderr.contains("evil.example"), "the refusals are logged")

            // Without a token (loopback only): no location by form or URL at all; the page is still the view's.
            let (openServe, open, openDB) = try await Self.serve(dir + "/without", token: false)
            let form415 = try await LoopbackHTTP.fetch(
                "POST", "/", port: open, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
            #expect(form415.status == 415 && form415.text.contains("--token"), "\(form415.status) \(form415.text)")
            let get403 = try await LoopbackHTTP.fetch("GET", "/?\(form)", port: open)
            #expect(get403.status == 403, "\(get403.status) \(get403.text)")
            #expect(try Self.stored(openDB, device: "evil").isEmpty)
            let page = try await LoopbackHTTP.fetch("GET", "/", port: open)
            #expect(page.status == 200 && (page.header("Content-Type") ?? "").hasPrefix("text/html"))
            #expect(openServe.process.isRunning, "\(openServe.stderr)")
        }
    }

    // MARK: - Dawarich

    @Test(.timeLimit(.minutes(5)))
    func dawarichClientsPostAndRead() async throws {
        try await withTemporaryDirectory { dir in
            let (serve, port, db) = try await Self.serve(dir)
            let json = [("Content-Type", "application/json")]
            func feature(_ second: Int, _ lat: Double) -> String {
                let time = String(format: "2024-05-01T10:00:%02dZ", second)
                return #"{"type":"Feature","geometry":{"type":"Point","coordinates":[5.1,\#(lat)]},"#
                    + #""properties":{"timestamp":"\#(time)","speed":2.5,"altitude":3,"device_id":"dw"}}"#
            }
            let posts = [
                ("/api/v1/overland/batches", #"{"locations":[\#(feature(0, 52.1))]}"#),
                ("/api/v1/points", #"{"locations":[\#(feature(10, 52.2))]}"#),
                ("/api/v1/owntracks/points", #"{"_type":"location","lat":52.3,"lon":5.1,"tst":\#(Self.t0 + 20)}"#),
            ]
            for (path, body) in posts {
                let a = try await LoopbackHTTP.fetch(
                    "POST", path + "?api_key=\(Self.token)", port: port, headers: json, body: body)
                #expect(a.status == 200, "\(path): \(a.status) \(a.text)")
            }
            #expect(try Self.stored(db, device: "dw").count == 2)

            let first = try await LoopbackHTTP.fetch(
                "GET", "/api/v1/points?api_key=\(Self.token)&per_page=2&order=asc", port: port)
            #expect(first.status == 200, "\(first.status) \(first.text)")
            #expect(first.header("X-Total-Pages") == "2" && first.header("X-Current-Page") == "1")
            let points = try #require(try JSONSerialization.jsonObject(with: Data(first.body)) as? [[String: Any]])
            #expect(points.count == 2)
            #expect(points.first?["latitude"] as? String == "52.1" && points.first?["longitude"] as? String == "5.1")
            #expect(
                points.first?["timestamp"] as? Int == Int(Self.t0) && points.first?["tracker_id"] as? String == "dw")
            let second = try await LoopbackHTTP.fetch(
                "GET", "/api/v1/points?api_key=\(Self.token)&per_page=2&page=2&order=asc", port: port)
            let last = try JSONSerialization.jsonObject(with: Data(second.body)) as? [[String: Any]]
            #expect(last?.count == 1 && last?.first?["latitude"] as? String == "52.3")
            let ranged = try await LoopbackHTTP.fetch(
                "GET", "/api/v1/points?api_key=\(Self.token)&start_at=2024-05-01T10:00:05Z&end_at=\(Self.t0 + 15)",
                port: port)
            let inRange = try JSONSerialization.jsonObject(with: Data(ranged.body)) as? [[String: Any]]
            #expect(inRange?.count == 1 && inRange?.first?["latitude"] as? String == "52.2", "\(ranged.text)")

            let stats = try await LoopbackHTTP.fetch(
                "GET", "/api/v1/stats", port: port, headers: [("Authorization", "Bearer \(Self.token)")])
            let totals = try JSONSerialization.jsonObject(with: Data(stats.body)) as? [String: Any]
            #expect(totals?["totalPointsTracked"] as? Int == 3 && totals?["totalCountriesVisited"] as? Int == 0)
            #expect((totals?["yearlyStats"] as? [[String: Any]])?.first?["year"] as? Int == 2024, "\(stats.text)")

            let tooMany = try await LoopbackHTTP.fetch(
                "GET", "/api/v1/points?api_key=\(Self.token)&per_page=5000", port: port)
            #expect(tooMany.status == 422 && tooMany.text.contains("per_page"), "\(tooMany.text)")
            let anonymous = try await LoopbackHTTP.fetch("GET", "/api/v1/points", port: port)
            #expect(anonymous.status == 401)
            #expect(!serve.stderr.contains(Self.token), "the api_key never reaches the log")
        }
    }
}
