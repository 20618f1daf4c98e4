// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The view's pages link to a day and say when a section is empty; the day page takes a time zone as
/// `gpslog timeline --timezone` does. Read as HTML from a real `gpslog serve`.
@Suite(.ownThreads) struct ViewLinksTests {
    /// The `HH:MM:SS` of the first `<span class="when">` on a day page.
    static func firstTime(_ html: String) -> String? {
        guard let r = html.range(of: #"<span class="when">"#) else { return nil }
        return String(html[r.upperBound...].prefix(8))
    }

    @Test(.timeLimit(.minutes(8)))
    func theDayPageShowsItsTimesInTheZoneAskedAndRefusesABadOne() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try await TimelineTests.record(db, dir: dir)
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let get = { (path: String) in try await LoopbackHTTP.fetch("GET", path, port: port) }

            let utc = try await get("/day/2024-05-01")
            #expect(utc.status == 200 && utc.text.contains("Day 2024-05-01 (UTC)"), "\(utc.text)")
            // The day's first point is 06:00:00Z; Amsterdam is two hours ahead in May.
            #expect(Self.firstTime(utc.text) == "06:00:00", "\(utc.text)")
            let amsterdam = try await get("/day/2024-05-01?tz=Europe/Amsterdam")
            #expect(amsterdam.status == 200, "\(amsterdam.text)")
            #expect(amsterdam.text.contains("Day 2024-05-01 (Europe/Amsterdam, +02:00)"), "\(amsterdam.text)")
            #expect(Self.firstTime(amsterdam.text) == "08:00:00", "\(amsterdam.text)")
            #expect(amsterdam.text.components(separatedBy: #"<li class="visit""#).count - 1 == 3)
            // The links to the days around keep the zone; the map's data is asked in it too.
            #expect(amsterdam.text.contains(#"href="/day/2024-05-02?tz=Europe%2FAmsterdam" rel="next""#))
            #expect(amsterdam.text.contains(#"data-tz="Europe/Amsterdam""#))
            let next = try await get("/day/2024-05-02?tz=Europe%2FAmsterdam")
            #expect(
                next.status == 200 && next.text.contains("Day 2024-05-02 (Europe/Amsterdam, +02:00)"), "\(next.text)")
            let api = try await get("/api/day/2024-05-01?tz=Europe/Amsterdam")
            #expect(api.status == 200 && api.text.contains(#""lines":[[["#), "\(api.text)")
            // The day's bounds move with the zone: 2024-04-30 in Los Angeles ends at 07:00Z, after the first point.
            #expect(try await get("/day/2024-04-30").text.contains(#"id="no-data""#))
            let losAngeles = try await get("/day/2024-04-30?tz=America/Los_Angeles")
            #expect(!losAngeles.text.contains(#"id="no-data""#), "\(losAngeles.text)")
            #expect(Self.firstTime(losAngeles.text) == "23:00:00", "\(losAngeles.text)")

            // A zone that is not one, too long, or carrying markup: 400, saying what a zone is, nothing echoed.
            for bad in ["Nowhere/Bogus", String(repeating: "A", count: 65), "%3Cscript%3Ealert(1)%3C/script%3E"] {
                let page = try await get("/day/2024-05-01?tz=" + bad)
                #expect(page.status == 400, "\(bad): \(page.status)")
                #expect(page.text.contains("tz is UTC or a time zone name such as Europe/Amsterdam"), "\(page.text)")
                #expect(!page.text.contains("<script>"))
                #expect(try await get("/api/day/2024-05-01?tz=" + bad).status == 400)
            }
        }
    }

    @Test(.timeLimit(.minutes(8)))
    func theSessionsListLinksEachStartToItsDayAndTheDayLinksBack() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try await TimelineTests.record(db, dir: dir)
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let list = try await LoopbackHTTP.fetch("GET", "/", port: port)
            #expect(
                list.text.contains(
                    #"<td><a href="/day/2024-05-01" title="the day's timeline">2024-05-01</a> "#
                        + "06:00:00Z</td>"), "\(list.text)")
            let day = try await LoopbackHTTP.fetch("GET", "/day/2024-05-01", port: port)
            #expect(day.text.contains(#"<a href="/?from=2024-05-01&amp;to=2024-05-01" id="day-sessions">"#))
            #expect(day.text.contains(#"<a href="/stats">"#))
            let back = try await LoopbackHTTP.fetch("GET", "/?from=2024-05-01&to=2024-05-01", port: port)
            #expect(back.text.contains(">Day</a>"), "the day's session is listed: \(back.text)")
        }
    }

    @Test(.timeLimit(.minutes(8)))
    func noVisitsSaysHowVisitsAreMadeOnTheStatsPageAndInStats() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try WebViewTests.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
            let imported = try await runGPSLogAsync(["import", dir + "/walk.gpx"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            let line = "No visits yet: places come from visits, which `gpslog record --visits` records"

            let stats = try await runGPSLogAsync(["stats"], database: db, folder: dir)
            #expect(stats.status == 0, "\(stats.stderr)")
            #expect(stats.stdout.contains("Most visited places\n" + line), "\(stats.stdout)")

            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let page = try await LoopbackHTTP.fetch("GET", "/stats", port: port)
            #expect(page.status == 200)
            #expect(
                page.text.contains("<h2>Most visited places</h2>\n<p class=\"muted empty\">" + line), "\(page.text)")
            #expect(!page.text.contains("<th>Place</th>"), "no empty table")
            #expect(page.text.contains(#"<a href="/sessions/"#), "the longest sessions are listed")

            // A database with nothing: each section says so in a line, no table without rows.
            let (empty, emptyPort) = try await LoopbackHTTP.serve(
                [], database: dir + "/empty.sqlite", folder: dir + "/empty")
            defer { AccountsTests.stop(empty) }
            let nothing = try await LoopbackHTTP.fetch("GET", "/stats", port: emptyPort)
            #expect(nothing.status == 200 && !nothing.text.contains("<table>"), "\(nothing.text)")
            #expect(nothing.text.components(separatedBy: "No distance recorded yet").count - 1 == 2)
            #expect(nothing.text.contains(line))
        }
    }
}

/// Chromium and Leaflet, as `make test` installs them.
private let browserReady =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/dygraphs/dygraph.min.js")

/// The pages in headless Chromium: the shared basemap's note on each map page, and the links to a day.
@Suite(
    .ownThreads,
    .enabled(if: browserReady, "needs chromium, libjs-leaflet and libjs-dygraphs (make test installs them)"))
struct ViewLinksPageTests {
    @Test(.timeLimit(.minutes(10)))
    func everyMapPageSaysInOneLineWhenTheTileServerFails() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try await TimelineTests.record(db, dir: dir)
            let (serve, port) = try await LoopbackHTTP.serve(
                ["--tiles", "http://127.0.0.1:1/{z}/{x}/{y}.png"], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let base = "http://127.0.0.1:\(port)"
            let id = try #require(try ViewAccountsTests.sessions(db).first?.id)
            for (path, what) in [
                ("/sessions/" + id, "the track is"), ("/history", "the tracks are"),
                ("/day/2024-05-01", "the tracks are"),
            ] {
                let dom = try WebViewTests.dom(base + path)
                #expect(dom.components(separatedBy: #"id="map-note""#).count == 2, "\(path): \(dom.prefix(4000))")
                #expect(
                    dom.contains("Map tiles could not be loaded from 127.0.0.1:1: \(what) drawn without a basemap"),
                    "\(path)")
                #expect(Int(WebViewTests.attribute("tile-errors", of: "map", in: dom) ?? "") ?? 0 > 0, "\(path)")
                #expect(!dom.contains(#"src="http://127.0.0.1:1/"#), "\(path): the failed layer is gone")
                #expect(dom.contains(#"<script src="/static/basemap.js" defer="">"#), "\(path)")
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aSessionsListLinkOpensItsDayAndTheStatsPageListsItsDays() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try await TimelineTests.record(db, dir: dir)
            let (serve, base) = try await WebViewTests.serve(db, folder: dir)
            defer { AccountsTests.stop(serve) }
            let list = try WebViewTests.dom(base + "/")
            let marker = #"<a href="/day/"#
            let link = try #require(
                list.range(of: marker).map { "/day/" + list[$0.upperBound...].prefix { $0 != "\"" } }, "\(list)")
            #expect(link == "/day/2024-05-01")
            let day = try WebViewTests.dom(base + link)
            #expect(day.contains("Day 2024-05-01 (UTC)"))
            #expect(WebViewTests.bodyAttribute("ready", in: day) == "true", "\(day.prefix(3000))")
            #expect(WebViewTests.attribute("places", of: "map", in: day) == "3", "\(day.prefix(3000))")

            // In a zone, the map asks its data in the same zone and draws the same places.
            let zoned = try WebViewTests.dom(base + link + "?tz=Europe/Amsterdam")
            #expect(WebViewTests.bodyAttribute("error", in: zoned) == nil)
            #expect(WebViewTests.attribute("places", of: "map", in: zoned) == "3", "\(zoned.prefix(3000))")

            // One month of figures: the chart is by day, and the days are links under it.
            let stats = try WebViewTests.dom(base + "/stats")
            #expect(WebViewTests.bodyAttribute("ready", in: stats) == "true", "\(stats.prefix(3000))")
            let days = try #require(stats.range(of: #"id="stats-days""#).map { stats[$0.upperBound...].prefix(300) })
            #expect(days.contains(#"<a href="/day/2024-05-01">2024-05-01</a>"#), "\(days)")
        }
    }
}
