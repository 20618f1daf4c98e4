// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// Chromium and the libraries the pages load, as `make test` installs them.
private let browserReady =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/dygraphs/dygraph.min.js")

/// `serve`'s web view in a real browser: Debian's Chromium, headless, loads the pages from a real `gpslog serve`,
/// runs Leaflet and dygraphs from Debian's libjs packages, and hands back the DOM they built.
@Suite(
    .ownThreads,
    .enabled(if: browserReady, "needs chromium, libjs-leaflet and libjs-dygraphs (make test installs them)"))
struct WebViewTests {
    static let chromium = "/usr/bin/chromium"
    static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    /// A short walk in two segments with two marks whose labels need escaping.
    static let walk = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <wpt lat="46.5005" lon="7.5005"><time>2024-05-01T10:01:00Z</time><name>Hut &lt;B&gt; &amp; "view"</name></wpt>
        <wpt lat="46.5020" lon="7.5030"><time>2024-05-01T10:04:00Z</time><name>Spring</name></wpt>
        <trk><name>Walk</name>
        <trkseg><trkpt lat="46.5000" lon="7.5000"><time>2024-05-01T10:00:00Z</time></trkpt>
        <trkpt lat="46.5005" lon="7.5005"><time>2024-05-01T10:01:00Z</time></trkpt>
        <trkpt lat="46.5010" lon="7.5010"><time>2024-05-01T10:02:00Z</time></trkpt></trkseg>
        <trkseg><trkpt lat="46.5015" lon="7.5020"><time>2024-05-01T10:03:00Z</time></trkpt>
        <trkpt lat="46.5020" lon="7.5030"><time>2024-05-01T10:04:00Z</time></trkpt>
        <trkpt lat="46.5025" lon="7.5040"><time>2024-05-01T10:05:00Z</time></trkpt></trkseg>
        </trk></gpx>
        """

    /// Chromium's DOM of `url` after its scripts ran (and their fetches came back).
    static func dom(_ url: String) throws -> String {
        try runTool(
            chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000", "--dump-dom", url])
    }

    static func runTool(_ path: String, _ arguments: [String]) throws -> String {
        try GPSLogTestSupport.runTool(path, arguments).output
    }

    /// The value of `data-NAME` on the element with `id`.
    static func attribute(_ name: String, of id: String, in dom: String) -> String? {
        ChromiumDOM.attribute(name, of: id, in: dom)
    }

    /// The value of `data-NAME` on the page's body.
    static func bodyAttribute(_ name: String, in dom: String) -> String? {
        guard let body = dom.range(of: "<body") else { return nil }
        let tag = dom[body.lowerBound...].prefix { $0 != ">" }
        guard let r = tag.range(of: "data-\(name)=\"") else { return nil }
        return String(tag[r.upperBound...].prefix { $0 != "\"" })
    }

    /// Starts `gpslog serve` on a free loopback port; returns it and its base URL.
    static func serve(_ db: String, folder: String, _ extra: [String] = []) async throws -> (BackgroundGPSLog, String) {
        let serve = try BackgroundGPSLog(
            ["serve", "--listen", "127.0.0.1:0", "--tiles", "none"] + extra, database: db, folder: folder)
        _ = await waitUntilAsync(timeout: 30) { serve.stdout.contains("Listening on http://") }
        let line = try #require(serve.stdout.split(separator: "\n").first { $0.hasPrefix("Listening on ") })
        let url = String(line.dropFirst("Listening on ".count).prefix { $0 != " " }).trimmingCharacters(in: ["/"])
        return (serve, url)
    }

    @Test(.timeLimit(.minutes(5)))
    func theSessionPageDrawsEachSegmentEveryPointTheMarksAndTheCharts() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try Self.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
            for file in [Self.hike, dir + "/walk.gpx"] {
                let r = try await runGPSLogAsync(["import", file], database: db, folder: dir)
                try #require(r.status == 0, "\(r.stderr)")
            }
            let (serve, base) = try await Self.serve(db, folder: dir)
            let export = try await runGPSLogAsync(
                ["export", "Walk", "--format", "geojson"], database: db, folder: dir)
            let api = try Self.runTool("/usr/bin/curl", ["-s", base + "/api/sessions"])
            let sessions = try #require(try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [[String: Any]])
            #expect(sessions.count == 2, "\(api)")
            let walkID = try #require(sessions.first { $0["name"] as? String == "Walk" }?["id"] as? String)
            let hikeID = try #require(sessions.first { $0["name"] as? String != "Walk" }?["id"] as? String)

            // Without a token only this machine's pages may read it: a page that pointed its own name at 127.0.0.1
            // (DNS rebinding) gets nothing.
            let rebound = try Self.runTool(
                "/usr/bin/curl", ["-s", "-H", "Host: evil.example:80", "-w", " %{http_code}", base + "/api/sessions"])
            #expect(rebound.hasSuffix(" 401") && !rebound.contains("Walk"), "\(rebound)")

            // The API's GeoJSON is the export's, byte for byte.
            let geojson = try Self.runTool("/usr/bin/curl", ["-s", base + "/api/sessions/\(walkID)/track.geojson"])
            #expect(geojson == export.stdout)

            let walk = try Self.dom(base + "/sessions/" + walkID)
            #expect(walk.contains("data-ready=\"true\""), "\(walk.prefix(3000))")
            #expect(Self.attribute("segments", of: "map", in: walk) == "2")
            #expect(Self.attribute("vertices", of: "map", in: walk) == "6")
            #expect(Self.attribute("marks", of: "map", in: walk) == "2")
            #expect(walk.components(separatedBy: "gpslog-segment").count - 1 == 2)
            // The label, escaped by the page and shown by Leaflet's tooltip as text, not markup.
            #expect(walk.contains("Hut &lt;B&gt; &amp; \"view\""), "\(walk.prefix(3000))")
            #expect(
                Self.attribute("points", of: "chart-speed", in: walk) == "6", "no speeds given: derived from positions")

            // The real hike: one line per segment the export has, every point, a chart sample per point.
            let hikeExport = try await runGPSLogAsync(
                ["export", hikeID, "--format", "geojson"], database: db, folder: dir)
            let features = try #require(
                (try JSONSerialization.jsonObject(with: Data(hikeExport.stdout.utf8)) as? [String: Any])?["features"]
                    as? [[String: Any]])
            let track = try #require(
                features.first { ($0["properties"] as? [String: Any])?["kind"] as? String == "track" })
            let geometry = try #require(track["geometry"] as? [String: Any])
            let lines =
                geometry["type"] as? String == "MultiLineString" ? (geometry["coordinates"] as? [[Any]])?.count : 1
            let hike = try Self.dom(base + "/sessions/" + hikeID)
            #expect(hike.contains("data-ready=\"true\""))
            #expect(Self.attribute("segments", of: "map", in: hike) == lines.map(String.init))
            #expect(Self.attribute("vertices", of: "map", in: hike) == "3540")
            #expect(Self.attribute("points", of: "chart-altitude", in: hike) == "3540")

            // A picture, not a blank page.
            let shot = dir + "/hike.png"
            _ = try Self.runTool(
                Self.chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1100,900",
                    "--virtual-time-budget=20000", "--screenshot=\(shot)", base + "/sessions/" + hikeID,
                ])
            let png = try Data(contentsOf: URL(fileURLWithPath: shot))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 30_000, "\(png.count) bytes")

            // The sessions page needs no JavaScript: it has none, and the browser shows the server's table.
            // (Chromium's --dump-dom itself needs scripts, so the page is read with them on.)
            #expect(!(try Self.runTool("/usr/bin/curl", ["-s", base + "/"])).contains("<script"))
            let list = try Self.dom(base + "/")
            #expect(list.contains("href=\"/sessions/\(walkID)\"") && list.contains(">Walk</a>"))
            #expect(list.contains("2 sessions, newest first"))
            let filtered = try Self.dom(base + "/?name=walk")
            #expect(filtered.contains("1 session, newest first") && filtered.contains(">Walk</a>"))
            _ = serve
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func offLoopbackTheViewNeedsTheTokenAndNeverShowsDataWithout() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let r = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let token = "view-test-token-0123456789"
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "0.0.0.0:0", "--token", token, "--tiles", "none"], database: db, folder: dir)
            _ = await waitUntilAsync(timeout: 30) { serve.stdout.contains("Listening on http://") }
            let port = try #require(serve.stdout.split(separator: ":").last.map { $0.prefix { $0.isNumber } })
            let base = "http://127.0.0.1:\(port)"
            func curl(_ args: [String]) throws -> String { try Self.runTool("/usr/bin/curl", ["-s"] + args) }

            let page = try Self.dom(base + "/")
            #expect(page.contains("name=\"token\"") && !page.contains("IJsselmeer"), "the login page, no data")
            #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", base + "/api/sessions"]) == "401")
            #expect(!(try curl([base + "/api/sessions"])).contains("IJsselmeer"))
            let wrong = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-d", "token=nope", base + "/login"])
            #expect(wrong == "401")
            let jar = dir + "/cookies"
            let right = try curl([
                "-c", jar, "-o", "/dev/null", "-w", "%{http_code}", "-d", "token=\(token)", base + "/login",
            ])
            #expect(right == "303")
            #expect(try curl(["-b", jar, base + "/"]).contains("IJsselmeer sail (sample)"))
            #expect(try curl(["-H", "Authorization: Bearer \(token)", base + "/api/sessions"]).contains("IJsselmeer"))
            // The receiver keeps its own rule: a POST without the token is refused.
            let post = try curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json", "-d",
                #"{"_type":"location","lat":52,"lon":5,"tst":1709300000}"#, base + "/pub",
            ])
            #expect(post == "401")
            #expect(!serve.stderr.contains(token), "the token is never logged")
        }
    }

    /// The sample's 147 s replayed at its own pace: the page must open while it still records, and a machine busy
    /// with the rest of the suite (and a CPU hog beside it) took over a minute to start serve and Chromium, past the
    /// 37 s of a 4x replay.
    @Test(.timeLimit(.minutes(10)))
    func aRecordingsPageGrowsWhileItRecordsAndSaysWhenItEnds() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            for name in ["rec", "serve"] {
                try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
            }
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--source", "replay:sample?speed=1", "--commit-every", "1s", "--name", "Live",
                    "--geocode", "off",
                ],
                database: db, folder: dir + "/rec")
            _ = await waitUntilAsync(timeout: 60) {
                let s = try? await runGPSLogAsync(["status", "--json"], database: db, folder: dir)
                return (s?.stdout.contains("\"entries\"") ?? false)
                    && ((try? JSONSerialization.jsonObject(with: Data(s!.stdout.utf8)) as? [String: Any])?["entries"]
                        as? Int ?? 0) >= 10
            }
            let (serve, base) = try await Self.serve(db, folder: dir + "/serve")
            let list = try Self.runTool("/usr/bin/curl", ["-s", base + "/"])
            #expect(list.contains(">Live</a> <span class=\"live\""), "the sessions page marks it: \(list)")
            let sessions = try Self.runTool("/usr/bin/curl", ["-s", base + "/api/sessions"])
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(sessions.utf8)) as? [[String: Any]])?.first?["id"]
                    as? String)
            // Chromium keeps the page (and its event stream) until the stream ends with the recording.
            let page = try Self.dom(base + "/sessions/" + id)
            #expect(await recorder.exitStatus(timeout: 240) == 0, "\(recorder.stderr)")
            let live = Int(Self.attribute("live", of: "map", in: page) ?? "") ?? 0
            #expect(live > 10, "points that arrived while the page was open: \(live)")
            #expect(Self.attribute("ended", of: "map", in: page) == "true")
            #expect(page.contains("gpslog-current") && page.contains("gpslog-live"))
            // The charts grew to every point of the track (the first ones loaded, the rest streamed).
            let track =
                try JSONSerialization.jsonObject(
                    with: Data(try Self.runTool("/usr/bin/curl", ["-s", base + "/api/sessions/\(id)"]).utf8))
                as? [String: Any]
            #expect(
                Self.attribute("points", of: "chart-speed", in: page)
                    == (track?["trackPoints"] as? Int).map(String.init))
            _ = serve
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func headingChangesAreArrowsAndMarksAreListedUnderTheMap() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let r = try await runGPSLogAsync(
                ["record", "--source", "replay:sample?speed=0", "--name", "Sail", "--geocode", "off"], database: db,
                folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let mark = try await runGPSLogAsync(
                [
                    "mark", "--session", "Sail", "--lat", "52.8495", "--lon", "5.3123", "--time",
                    "2018-08-20T09:48:20Z",
                    "Buoy <3> & \"red\"",
                ], database: db, folder: dir)
            try #require(mark.status == 0, "\(mark.stderr)")
            let (serve, base) = try await Self.serve(db, folder: dir)
            let summary = try #require(
                (try JSONSerialization.jsonObject(
                    with: Data(try Self.runTool("/usr/bin/curl", ["-s", base + "/api/sessions"]).utf8))
                    as? [[String: Any]])?.first)
            let id = try #require(summary["id"] as? String)
            let headings = try #require(summary["headingChanges"] as? Int)
            try #require(headings > 2, "the sample turns")
            let page = try Self.dom(base + "/sessions/" + id)
            #expect(page.contains("data-ready=\"true\""), "\(page.prefix(3000))")
            // Every heading change of the sail is in view, each an arrow turned to its heading.
            #expect(Self.attribute("arrows", of: "map", in: page) == String(headings))
            #expect(page.components(separatedBy: "class=\"leaflet-marker-icon gpslog-heading").count - 1 == headings)
            #expect(page.contains("rotate(2"), "the sail heads south-west, 200-odd degrees")
            // The marks under the map: a button each, the label escaped.
            #expect(page.contains("<ol class=\"marks\">"))
            #expect(
                page.contains(
                    "data-mark-lat=\"52.8495\" data-mark-lon=\"5.3123\">Buoy &lt;3&gt; &amp; \"red\"</button>"))
            // What the page measured of itself (the bench reads the same).
            let ready = Int(Self.bodyAttribute("ready-ms", in: page) ?? "") ?? -1
            let bytes = Int(Self.bodyAttribute("bytes", in: page) ?? "") ?? -1
            #expect(ready > 0 && bytes > 100_000 && bytes < 5_000_000, "\(ready) ms, \(bytes) bytes")
            // Answers kept by the server go when the database changes: a mark added from another process is in the
            // next GeoJSON.
            let url = base + "/api/sessions/\(id)/track.geojson"
            let before = try Self.runTool("/usr/bin/curl", ["-s", url])
            #expect(try Self.runTool("/usr/bin/curl", ["-s", url]) == before)
            let another = try await runGPSLogAsync(
                [
                    "mark", "--session", "Sail", "--lat", "52.85", "--lon", "5.3136", "--time", "2018-08-20T09:47:40Z",
                    "Start line",
                ], database: db, folder: dir)
            try #require(another.status == 0, "\(another.stderr)")
            let after = try Self.runTool("/usr/bin/curl", ["-s", url])
            #expect(!before.contains("Start line") && after.contains("Start line"))
            // The keyboard, through the DevTools protocol: with the charts focused, End goes to the last point and
            // the left arrow steps back one; the map's cursor follows.
            let probe = try GPSLogTestSupport.runTool(
                "/usr/bin/python3",
                [
                    TestPaths.packageRoot + "/Benchmarks/page-time.py", base + "/sessions/" + id, "--press",
                    "End,ArrowLeft",
                ])
            let keys = try JSONSerialization.jsonObject(with: Data(probe.output.utf8)) as? [String: Any]
            let points = try #require(keys?["chartPoints"] as? Int, "\(probe.output)")
            #expect(points == summary["trackPoints"] as? Int)
            #expect(keys?["cursor"] as? String == String(points - 2), "\(probe.output)")
            _ = serve
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aLongSessionComesSimplifiedWithFullDetailForATimeWindow() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let gpx = dir + "/long.gpx"
            let made = try GPSLogTestSupport.runTool(
                "/usr/bin/python3", [TestPaths.packageRoot + "/Benchmarks/generate.py", "gpx", "50000", gpx])
            try #require(made.status == 0)
            let r = try await runGPSLogAsync(["import", gpx, "--name", "Long"], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let (serve, base) = try await Self.serve(db, folder: dir)
            let sessions = try Self.runTool("/usr/bin/curl", ["-s", base + "/api/sessions"])
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(sessions.utf8)) as? [[String: Any]])?.first?["id"]
                    as? String)
            let page = try Self.dom(base + "/sessions/" + id)
            #expect(page.contains("data-ready=\"true\""))
            // The map's track is simplified (GEOS, about a pixel of the whole map) and the charts thinned.
            let tolerance = Double(Self.attribute("tolerance", of: "map", in: page) ?? "") ?? 0
            let vertices = Int(Self.attribute("vertices", of: "map", in: page) ?? "") ?? 0
            #expect(tolerance > 1 && vertices > 10 && vertices < 50_000 / 100, "\(tolerance) m, \(vertices) vertices")
            // Over twice the chart's 5,000 points: sampled evenly in time, one point every 10 s of the 50,000.
            #expect(Self.attribute("points", of: "chart-altitude", in: page) == "5000")
            // The simplified track is the export's with the same tolerance.
            let simplified = try Self.runTool(
                "/usr/bin/curl", ["-s", base + "/api/sessions/\(id)/track.geojson?tolerance=\(tolerance)"])
            let export = try await runGPSLogAsync(
                ["export", "Long", "--format", "geojson", "--simplify", "\(tolerance)"], database: db, folder: dir)
            #expect(simplified == export.stdout)
            // A time window comes in full detail: ten minutes at one point a second.
            let window = try Self.runTool(
                "/usr/bin/curl",
                ["-s", base + "/api/sessions/\(id)/entries?from=2024-05-01T06:00:00Z&to=2024-05-01T06:09:59Z"])
            let entries = (try JSONSerialization.jsonObject(with: Data(window.utf8)) as? [String: Any])?["entries"]
            #expect((entries as? [Any])?.count == 600)
            _ = serve
        }
    }
}
