// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogStore
import GPSLogTestSupport
import Testing

/// A day's timeline end to end: a recorded day whose slow uphill walk the stay detector cuts into many touching
/// visits, `gpslog timeline` showing them as one, `visit rename` and `visit delete`, and the day page of a real
/// `serve` (each user their own, never through a share link, and in headless Chromium its map and list).
@Suite(.ownThreads, .serialized) struct TimelineTests {
    /// 2024-05-01: 30 minutes at home, a 3 km drive north, two hours of walking east at 0.1 m/s (the stay detector
    /// ends a visit 50 m from where it began, so the walk is a row of touching visits), a kilometre's walk north,
    /// 20 minutes at a café and five minutes on (unless `leaving` is false: the recording ends at the café). A
    /// point every 5 s.
    static func day(leaving: Bool = true) -> String {
        var points: [(Int, Double, Double)] = []
        var (t, lat, lon) = (1_714_543_200, 46.0, 7.0)
        let metre = 1 / 111_320.0
        func add(_ n: Int, north: Double = 0, east: Double = 0) {
            for _ in 0..<n {
                lat += north * 5 * metre
                lon += east * 5 * metre / cos(lat * .pi / 180)
                points.append((t, lat, lon))
                t += 5
            }
        }
        add(360)  // home
        add(180, north: 3.333)  // the drive
        add(1440, east: 0.1)  // the slow walk
        add(143, north: 1.4)
        add(240)  // the café
        if leaving { add(60, north: 1.4) }
        let formatter = ISO8601DateFormatter()
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">"#
        gpx += "<trk><name>Day</name><trkseg>\n"
        for (t, lat, lon) in points {
            let time = formatter.string(from: Date(timeIntervalSince1970: Double(t)))
            gpx += String(format: #"<trkpt lat="%.7f" lon="%.7f"><time>%@</time></trkpt>"#, lat, lon, time) + "\n"
        }
        return gpx + "</trkseg></trk></gpx>\n"
    }

    /// Records the day with `--visits` into `db`; the number of visits stored.
    static func record(_ db: String, dir: String, leaving: Bool = true) async throws -> Int {
        let file = dir + "/day.gpx"
        try day(leaving: leaving).write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await runGPSLogAsync(
            ["record", "--source", "replay:\(file)?speed=0", "--geocode", "off", "--name", "Day", "--visits"],
            database: db, folder: dir)
        try #require(r.status == 0, "\(r.stderr)")
        let database = try Database(path: db, mode: .readOnly)
        defer { database.close() }
        return Int(try database.scalar("SELECT count(*) FROM Visits")?.int64 ?? 0)
    }

    /// `timeline DAY --json`'s items.
    static func items(_ db: String, dir: String, day: String = "2024-05-01") async throws -> [[String: Any]] {
        let r = try await runGPSLogAsync(["timeline", day, "--json"], database: db, folder: dir)
        try #require(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require(json["items"] as? [[String: Any]])
    }

    @Test(.timeLimit(.minutes(8)))
    func aSlowWalkIsOneVisitWhichRenameNamesAndDeleteRemoves() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/day.sqlite"
            let stored = try await Self.record(db, dir: dir)
            #expect(stored >= 10, "the slow walk is cut into many visits: \(stored)")

            var items = try await Self.items(db, dir: dir)
            #expect(items.map { $0["kind"] as? String } == ["visit", "move", "visit", "move", "visit", "move"])
            let visits = items.filter { $0["kind"] as? String == "visit" }
            try #require(visits.count == 3, "\(items)")
            let walk = visits[1]
            let pieces = try #require(walk["visits"] as? [Int])
            #expect(pieces.count == stored - 2, "every visit of the walk is one: \(pieces)")
            #expect(walk["arrival"] as? String == "2024-05-01T06:44:55Z" && walk["departure"] != nil, "\(walk)")
            let drive = items[1]
            let metres = try #require(drive["distanceMetres"] as? Double)
            #expect((2800...3100).contains(metres), "the drive is about 3 km: \(metres)")
            #expect(drive["start"] as? String == visits[0]["departure"] as? String)

            var text = try await runGPSLogAsync(["timeline", "2024-05-01"], database: db, folder: dir)
            #expect(text.status == 0 && text.stdout.contains("\(pieces.count) visits merged"), "\(text.stdout)")
            #expect(text.stdout.split(separator: "\n").count == 7, "a heading and six lines: \(text.stdout)")
            // The day in another time zone starts two hours earlier: the same items, at local times.
            text = try await runGPSLogAsync(
                ["timeline", "2024-05-01", "--timezone", "+02:00"], database: db, folder: dir)
            #expect(text.stdout.contains("08:44:55 to 10:42:45"), "\(text.stdout)")
            let empty = try await runGPSLogAsync(["timeline", "2024-05-02"], database: db, folder: dir)
            #expect(empty.status == 0 && empty.stdout.hasPrefix("No data on 2024-05-02 (UTC)"), "\(empty.stdout)")
            #expect(try await Self.items(db, dir: dir, day: "2024-05-02").isEmpty)
            let bad = try await runGPSLogAsync(["timeline", "2024-02-30"], database: db, folder: dir)
            #expect(bad.status != 0 && bad.stderr.contains("'2024-02-30' is not a date"), "\(bad.stderr)")

            // A name given to any piece names the place; it comes first, escaped.
            var r = try await runGPSLogAsync(
                ["visit", "rename", String(pieces[3]), "Alp\u{1B}[31m hut"], database: db, folder: dir)
            #expect(r.status == 0, "\(r.stderr)")
            text = try await runGPSLogAsync(["timeline", "2024-05-01"], database: db, folder: dir)
            let line = try #require(text.stdout.split(separator: "\n").first { $0.contains("visits merged") })
            #expect(line.lowercased().contains(#"  alp\u001b[31m hut  [visit \#(pieces[0])"#), "\(line)")
            #expect(!text.stdout.contains("\u{1B}"))
            r = try await runGPSLogAsync(
                ["visit", "rename", String(pieces[0]), String(repeating: "x", count: 201)], database: db, folder: dir)
            #expect(r.status != 0 && r.stderr.contains("at most 200"), "\(r.stderr)")
            r = try await runGPSLogAsync(["visit", "rename", "999999", "Nowhere"], database: db, folder: dir)
            #expect(r.status != 0 && r.stderr.contains("no visit has the id 999999"), "\(r.stderr)")

            // Deleting the place deletes every piece; the walk becomes a move's track points no more, a gap.
            r = try await runGPSLogAsync(["visit", "delete", String(pieces[0])], database: db, folder: dir)
            #expect(r.status == 0 && r.stdout.contains("\(pieces.count) visits merged"), "\(r.stdout) \(r.stderr)")
            items = try await Self.items(db, dir: dir)
            #expect(items.filter { $0["kind"] as? String == "visit" }.count == 2, "\(items)")
            #expect(!items.contains { ($0["visits"] as? [Int])?.contains(pieces[0]) == true })
            r = try await runGPSLogAsync(["visit", "delete", String(pieces[0])], database: db, folder: dir)
            #expect(r.status != 0 && r.stderr.contains("no visit has the id"), "\(r.stderr)")
        }
    }

    /// A recording that ends during a stay: the recorder never saw a departure, so the place is shown to the
    /// recording's end (in `--json` as `recordingEnded`), never "still there" on every later day.
    @Test(.timeLimit(.minutes(8)))
    func aStayTheRecordingEndedInEndsThere() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/day.sqlite"
            _ = try await Self.record(db, dir: dir, leaving: false)
            let items = try await Self.items(db, dir: dir)
            let cafe = try #require(items.last, "\(items)")
            #expect(cafe["kind"] as? String == "visit" && cafe["departure"] == nil, "\(cafe)")
            let ended = try #require((cafe["recordingEnded"] as? String).flatMap { Timestamp(iso8601: $0) }, "\(cafe)")
            let arrival = try #require((cafe["arrival"] as? String).flatMap { Timestamp(iso8601: $0) })
            #expect(ended >= arrival, "\(cafe)")
            let text = try await runGPSLogAsync(["timeline", "2024-05-01"], database: db, folder: dir)
            let line = try #require(text.stdout.split(separator: "\n").last.map(String.init), "\(text.stdout)")
            #expect(line.contains("recording") && line.contains("(no departure seen)"), "\(text.stdout)")
            #expect(!text.stdout.contains("still there"), "\(text.stdout)")
            // The day page says the same.
            let (serve, port) = try await LoopbackHTTP.serve(["--tiles", "none"], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let page = try await LoopbackHTTP.fetch("GET", "/day/2024-05-01", port: port)
            #expect(page.status == 200 && page.text.contains("(no departure seen)"), "\(page.text)")
            #expect(!page.text.contains("still there"), "\(page.text)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func theDayPageShowsTheViewersOwnDayAndNoShareLinkReachesIt() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            try await ViewAccountsTests.addUser("alice", "alice's secret 1", db: db, dir: dir)
            try await ViewAccountsTests.addUser("bob", "bob's secret 2", db: db, dir: dir)
            _ = try await Self.record(db, dir: dir)
            let database = try Database(path: db)
            try database.run("UPDATE Sessions SET Owner = (SELECT Key FROM Users WHERE Name = 'alice')")
            database.close()
            let r = try await runGPSLogAsync(["visit", "rename", "1", "Home <&> \"sweet\""], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            // Bob's phone posts on the same day.
            let phone = try await AccountsTests.addDevice("bob/phone", db: db, folder: dir)
            for n in 0..<3 {
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/", port: port, headers: [AccountsTests.json, ("Authorization", "Bearer " + phone)],
                    body: AccountsTests.overland(n * 10, device: "phone"))
                #expect(answer.status == 200, "\(answer.text)")
            }
            let alice = try #require(try ViewAccountsTests.sessions(db).first { $0.owner == "alice" }?.id)
            var cookies: [String: (String, String)] = [:]
            for (user, password) in [("alice", "alice's secret 1"), ("bob", "bob's secret 2")] {
                cookies[user] = try #require(try await ViewAccountsTests.login(user, password, port: port).1)
            }
            let get = { (user: String?, path: String) in
                try await LoopbackHTTP.fetch("GET", path, port: port, headers: user.map { [cookies[$0]!] } ?? [])
            }

            let page = try await get("alice", "/day/2024-05-01")
            #expect(page.status == 200)
            #expect(page.text.components(separatedBy: #"<li class="visit""#).count - 1 == 3, "\(page.text)")
            #expect(page.text.contains("<b>Home &lt;&amp;&gt; &quot;sweet&quot;</b>"), "escaped: \(page.text)")
            #expect(page.text.contains("visits merged"))
            #expect(page.text.contains(#"href="/day/2024-04-30" rel="prev""#))
            #expect(page.text.contains(#"href="/day/2024-05-02" rel="next""#))
            let api = try await get("alice", "/api/day/2024-05-01")
            #expect(api.status == 200 && api.text.contains(alice) && api.text.contains(#""lines":[[["#), "\(api.text)")
            #expect(try await get("alice", "/sessions/" + alice).text.contains(#"<a href="/day/2024-05-01">"#))

            // Bob's day: his own moves, none of alice's places or tracks.
            let bobs = try await get("bob", "/day/2024-05-01")
            #expect(bobs.status == 200 && !bobs.text.contains(#"<li class="visit""#), "\(bobs.text)")
            #expect(!bobs.text.contains("Home"))
            let bobsAPI = try await get("bob", "/api/day/2024-05-01")
            #expect(bobsAPI.status == 200 && !bobsAPI.text.contains(alice) && !bobsAPI.text.contains("Home"))
            #expect(try await get("alice", "/day/2024-05-02").text.contains(#"id="no-data""#))
            #expect(try await get("alice", "/day/2024-5-1").status == 400)
            #expect(try await get("alice", "/api/day/yesterday").status == 400)

            // Without a login nothing; a share link of alice's session reaches no day.
            #expect(try await get(nil, "/day/2024-05-01").header("Location") == "/login")
            #expect(try await get(nil, "/api/day/2024-05-01").status == 401)
            let share = try await runGPSLogAsync(["share", alice], database: db, folder: dir)
            try #require(share.status == 0, "\(share.stderr)")
            let token = try #require(
                share.stdout.split(separator: "\n").last?.split(separator: "/").last.map(String.init))
            let link = try await get(nil, "/s/" + token)
            #expect(link.status == 200 && !link.text.contains("/day/"), "a share link's page links to no day")
            for path in ["/day/2024-05-01", "/api/day/2024-05-01"] {
                #expect(try await get(nil, "/s/" + token + path).status == 404, "\(path) under a share link")
            }
        }
    }
}

/// Chromium and Leaflet, as `make test` installs them.
private let browserReady =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")

/// The day page in headless Chromium: the map draws the day's track and places, beside the list.
@Suite(.ownThreads, .enabled(if: browserReady, "needs chromium and libjs-leaflet"))
struct DayPageBrowserTests {
    @Test(.timeLimit(.minutes(8)))
    func theDayPageDrawsItsMapAndList() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try await TimelineTests.record(db, dir: dir)
            let (serve, base) = try await WebViewTests.serve(db, folder: dir)
            defer { AccountsTests.stop(serve) }
            let dom = try WebViewTests.dom(base + "/day/2024-05-01")
            #expect(WebViewTests.bodyAttribute("ready", in: dom) == "true", "\(dom.prefix(3000))")
            #expect(WebViewTests.bodyAttribute("error", in: dom) == nil)
            #expect(WebViewTests.attribute("places", of: "map", in: dom) == "3", "\(dom.prefix(3000))")
            #expect(Int(WebViewTests.attribute("lines", of: "map", in: dom) ?? "") ?? 0 >= 1)
            #expect(dom.contains("leaflet-interactive"), "the track and places are drawn on the map")
            #expect(dom.components(separatedBy: #"<li class="visit""#).count - 1 == 3)
        }
    }
}
