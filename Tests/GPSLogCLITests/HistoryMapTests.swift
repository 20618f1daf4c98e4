// SPDX-License-Identifier: MIT
import Foundation
import GPSLogPNG
import GPSLogSQLite
import GPSLogStore
import GPSLogTestSupport
import Testing

/// The history map end to end: a real `gpslog serve` over a database with the bundled recording draws its tiles
/// from the kept pyramid (pixels where the track is, none far away), a write through import or the receiver
/// changes them, each user sees only their own tracks, a share link never reaches them, and `plot --all` draws
/// every session.
@Suite(.ownThreads, .serialized) struct HistoryMapTests {
    /// The tile at `z` holding the point, and the point's pixel in it.
    static func tile(_ lat: Double, _ lon: Double, z: Int) -> (path: String, px: Int, py: Int) {
        let p = HistoryRaster.pixel(latitude: lat, longitude: lon, zoom: z)
        let (x, y) = (Int(p.x) / 256, Int(p.y) / 256)
        return ("/history/tiles/\(z)/\(x)/\(y).png", Int(p.x) - x * 256, Int(p.y) - y * 256)
    }

    /// The tile's RGBA pixels, decoded by libpng.
    static func pixels(_ answer: LoopbackHTTP.Answer) throws -> [UInt8] {
        #expect(answer.header("Content-Type") == "image/png")
        let picture = try PNGDecoder().decode(answer.body)
        try #require(picture.width == 256 && picture.height == 256)
        return picture.rgba
    }

    /// How many pixels are not transparent.
    static func lit(_ rgba: [UInt8]) -> Int { stride(from: 3, to: rgba.count, by: 4).filter { rgba[$0] > 0 }.count }

    /// True when a pixel within 2 of (x, y) is not transparent.
    static func litNear(_ rgba: [UInt8], _ x: Int, _ y: Int) -> Bool {
        for dy in -2...2 {
            for dx in -2...2 where (0..<256).contains(x + dx) && (0..<256).contains(y + dy) {
                if rgba[((y + dy) * 256 + x + dx) * 4 + 3] > 0 { return true }
            }
        }
        return false
    }

    /// A track point of the database's first session (the 21st, away from the start).
    static func trackPoint(_ db: String) throws -> (lat: Double, lon: Double) {
        let database = try Database(path: db, mode: .readOnly)
        defer { database.close() }
        let text = try #require(
            try database.scalar(
                """
                SELECT Latitude || ',' || Longitude FROM EntryRows WHERE Marked = 0 AND IsHeadingChanged = 0
                ORDER BY TimeStamp LIMIT 1 OFFSET 20
                """)?.string)
        let parts = text.split(separator: ",").compactMap { Double($0) }
        return (parts[0], parts[1])
    }

    /// How many kept tiles of `scope` (-1: every session) the database holds at zoom `z`.
    static func keptTiles(_ db: String, z: Int, scope: Int64 = -1) throws -> Int64 {
        let database = try Database(path: db, mode: .readOnly)
        defer { database.close() }
        return try database.scalar(
            "SELECT count(*) FROM HistoryTiles WHERE Z = ? AND Scope = ?", [.integer(Int64(z)), .integer(scope)])?
            .int64 ?? 0
    }

    /// `serve` draws the pyramid in the background: no browser asked, yet the world tile and the track's zoom-13
    /// tiles are kept soon after the start, and again soon after an import dropped them.
    @Test(.timeLimit(.minutes(10)))
    func serveKeepsThePyramidDrawnWithoutBeingAsked() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let sample = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(sample.status == 0, "\(sample.stderr)")
            #expect(try Self.keptTiles(db, z: 0) == 0, "an import draws no tile")
            let (serve, _) = try await LoopbackHTTP.serve(["--tiles", "none"], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            #expect(try await waitUntilAsync(timeout: 120) { try Self.keptTiles(db, z: 0) == 1 }, "\(serve.stderr)")
            #expect(try Self.keptTiles(db, z: 13) > 0)
            // A walk elsewhere: its import drops the world tile; the next round draws it again.
            try WebViewTests.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
            let imported = try await runGPSLogAsync(["import", dir + "/walk.gpx"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            let walk = HistoryRaster.pixel(latitude: 46.5010, longitude: 7.5010, zoom: 13)
            let database = try Database(path: db, mode: .readOnly)
            defer { database.close() }
            let walkTile: () throws -> Int64 = {
                try database.scalar(
                    "SELECT count(*) FROM HistoryTiles WHERE Z = 13 AND Scope = -1 AND X = ? AND Y = ?",
                    [.integer(Int64(walk.x) / 256), .integer(Int64(walk.y) / 256)])?.int64 ?? 0
            }
            #expect(
                try await waitUntilAsync(timeout: 180) { try walkTile() == 1 && Self.keptTiles(db, z: 0) == 1 },
                "the walk's tile and the world tile kept again: \(serve.stderr)")
            #expect(!serve.stderr.contains("history map:"), "\(serve.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func tilesShowTheTracksAndFollowAnImport() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let sample = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(sample.status == 0, "\(sample.stderr)")
            let point = try Self.trackPoint(db)
            let (serve, port) = try await LoopbackHTTP.serve(["--tiles", "none"], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let get = { (path: String) in try await LoopbackHTTP.fetch("GET", path, port: port) }

            // The track's pixel is drawn at every zoom: kept (3, 13) and drawn from the entries (16); a tile far
            // away is empty, and so is the track's own tile filtered to a time after it.
            for z in [3, 13, 16] {
                let t = Self.tile(point.lat, point.lon, z: z)
                let answer = try await get(t.path)
                try #require(answer.status == 200, "\(t.path): \(answer.status) \(answer.text)")
                let rgba = try Self.pixels(answer)
                #expect(Self.litNear(rgba, t.px, t.py), "\(t.path) at \(t.px),\(t.py): \(Self.lit(rgba)) lit")
                // Asked again (now kept): the same picture.
                #expect(try await get(t.path).body == answer.body, "\(t.path) kept")
            }
            let far = try Self.pixels(try await get("/history/tiles/13/0/0.png"))
            #expect(Self.lit(far) == 0)
            let own = Self.tile(point.lat, point.lon, z: 13)
            #expect(Self.lit(try Self.pixels(try await get(own.path + "?from=2090-01-01"))) == 0)
            let heat = try Self.pixels(try await get(own.path + "?style=heat&to=2090-01-01"))
            #expect(Self.litNear(heat, own.px, own.py))
            // Where I've been: the 8-pixel cell holding the track is filled whole, and the fill covers more ground
            // than the lines; a cell the track did not cross stays clear.
            let lines = try Self.pixels(try await get(own.path))
            let visited = try Self.pixels(try await get(own.path + "?style=visited"))
            let (cx, cy) = (own.px / 8 * 8, own.py / 8 * 8)
            #expect((cy..<cy + 8).allSatisfy { y in (cx..<cx + 8).allSatisfy { visited[(y * 256 + $0) * 4 + 3] > 0 } })
            #expect(Self.lit(visited) > Self.lit(lines), "\(Self.lit(visited)) filled, \(Self.lit(lines)) lines")
            #expect(Self.lit(visited) % 64 == 0, "whole cells only")
            #expect(Self.lit(visited) < 256 * 256)
            for bad in [
                own.path + "?style=pencil", own.path + "?from=yesterday", own.path + "?device=a%20b",
                String(own.path.dropLast(4)), "/history/tiles/23/0/0.png", "/history/tiles/1/2/0.png",
            ] {
                let answer = try await get(bad)
                #expect(answer.status == 400 && answer.text.contains("error"), "\(bad): \(answer.status)")
            }

            // An import while serve runs: its tile and the world tile (kept since the first request above) change.
            let world = try await get("/history/tiles/0/0/0.png").body
            let walk = Self.tile(46.5010, 7.5010, z: 15)
            #expect(Self.lit(try Self.pixels(try await get(walk.path))) == 0)
            try WebViewTests.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
            let imported = try await runGPSLogAsync(["import", dir + "/walk.gpx"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            // A GPX file without gpslog's mode element: the walk gets its mode as a user's script would give it.
            let writer = try Database(path: db)
            try writer.run("UPDATE Sessions SET Mode = 'walk' WHERE Name = 'Walk'")
            writer.close()
            #expect(Self.litNear(try Self.pixels(try await get(walk.path)), walk.px, walk.py))
            #expect(try await get("/history/tiles/0/0/0.png").body != world, "the world tile was drawn again")

            // A click on the track names its session; a click where no track passes, none.
            let sessions = try await get("/api/sessions").text
            let at = try await get("/api/history/at?lat=46.5010&lon=7.5010&z=15")
            #expect(at.status == 200, "\(at.text)")
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(at.body)) as? [String: String])?["id"])
            #expect(sessions.contains(id))
            #expect(try await get("/api/history/at?lat=-40&lon=-120&z=15").status == 404)
            #expect(try await get("/api/history/at?lat=91&lon=0&z=15").status == 400)

            // One trip mode: the walk shows with mode=walk only, and a click follows the filter the map shows.
            #expect(Self.litNear(try Self.pixels(try await get(walk.path + "?mode=walk")), walk.px, walk.py))
            for hidden in ["car", "none"] {
                #expect(Self.lit(try Self.pixels(try await get(walk.path + "?mode=\(hidden)"))) == 0, "\(hidden)")
                #expect(try await get("/api/history/at?lat=46.5010&lon=7.5010&z=15&mode=\(hidden)").status == 404)
            }
            #expect(try await get("/api/history/at?lat=46.5010&lon=7.5010&z=15&mode=walk").text == at.text)
            let badMode = try await get(walk.path + "?mode=hovercraft")
            #expect(badMode.status == 400 && badMode.text.contains("mode must be one of none, walk"), "\(badMode.text)")

            // The page, linked from the sessions page.
            let page = try await get("/history")
            #expect(page.status == 200 && page.text.contains(#"data-history="/history/tiles/{z}/{x}/{y}.png""#))
            #expect(page.text.contains(#"<script src="/static/history.js""#))
            #expect(try await get("/").text.contains(#"<a href="/history">"#))
            #expect(try await get("/history?mode=walk").text.contains(#"<option value="walk" selected>walk</option>"#))
            // The map is placed where the filters' tracks are, and filters that hide every track say so.
            let walkPage = try await get("/history?mode=walk").text
            #expect(!page.text.contains("history-none") && !walkPage.contains("history-none"))
            let bounds = { (html: String) -> [Double] in
                guard let start = html.range(of: #"data-bounds=""#),
                    let end = html[start.upperBound...].firstIndex(of: "\"")
                else { return [] }
                return html[start.upperBound..<end].split(separator: ",").compactMap { Double($0) }
            }
            let (all, walkBox) = (bounds(page.text), bounds(walkPage))
            // The walk alone, in the Alps; every track reaches the sample's sail on the IJsselmeer too.
            #expect(walkBox.count == 4 && walkBox[0] >= 46.49 && walkBox[2] <= 46.51, "\(walkBox)")
            #expect(all.count == 4 && all[2] > 52, "\(all)")
            for hidden in ["?mode=car", "?from=2090-01-01", "?device=nobody"] {
                #expect(try await get("/history" + hidden).text.contains("No track matches these filters"), "\(hidden)")
            }

            // plot --all: every session on one picture.
            let plot = try await runGPSLogAsync(["plot", "--all", "-o", dir + "/all.svg"], database: db, folder: dir)
            #expect(plot.status == 0, "\(plot.stderr)")
            let svg = try String(contentsOfFile: dir + "/all.svg", encoding: .utf8)
            #expect(
                svg.contains("Walk") && svg.components(separatedBy: #"fill="none" stroke="#).count > 2,
                "\(svg.prefix(600))")
            for wrong in [["plot", "-o", dir + "/x.svg"], ["plot", "Walk", "--all", "-o", dir + "/x.svg"]] {
                let r = try await runGPSLogAsync(wrong, database: db, folder: dir)
                #expect(r.status != 0 && r.stderr.contains("--all"), "\(r.stderr)")
            }
            // plot --all --mode: the walk alone.
            let walks = try await runGPSLogAsync(
                ["plot", "--all", "--mode", "walk", "-o", dir + "/walks.svg"], database: db, folder: dir)
            #expect(walks.status == 0, "\(walks.stderr)")
            let walkSVG = try String(contentsOfFile: dir + "/walks.svg", encoding: .utf8)
            let strokes = { (svg: String) in svg.components(separatedBy: #"fill="none" stroke="#).count }
            #expect(walkSVG.contains("Walk") && strokes(walkSVG) > 1 && strokes(walkSVG) < strokes(svg))
            let badPlot = try await runGPSLogAsync(
                ["plot", "--all", "--mode", "hovercraft", "-o", dir + "/x.svg"], database: db, folder: dir)
            #expect(badPlot.status != 0 && badPlot.stderr.contains("--mode must be one of"), "\(badPlot.stderr)")
        }
    }

    /// One Overland location at (lat, lon), second `second` of 2024-05-01T10:00Z.
    static func overland(_ lat: Double, _ lon: Double, second: Int) -> String {
        let time = String(format: "2024-05-01T10:%02d:%02dZ", second / 60 % 60, second % 60)
        return #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"#
            + #""properties":{"timestamp":"\#(time)","device_id":"phone"}}]}"#
    }

    @Test(.timeLimit(.minutes(10)))
    func eachUserSeesOnlyTheirOwnTracksAndAShareLinkNone() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            try await ViewAccountsTests.addUser("alice", "alice's secret 1", db: db, dir: dir)
            try await ViewAccountsTests.addUser("bob", "bob's secret 2", db: db, dir: dir)
            try await ViewAccountsTests.addUser("carol", "carol's secret 3", db: db, dir: dir)
            let phones = [
                "alice": try await AccountsTests.addDevice("alice/phone", db: db, folder: dir),
                "bob": try await AccountsTests.addDevice("bob/phone", db: db, folder: dir),
            ]
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let home = ["alice": (52.1, 5.1), "bob": (48.85, 2.35)]
            let post = { (user: String, n: Int) in
                let (lat, lon) = home[user]!
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/", port: port,
                    headers: [AccountsTests.json, ("Authorization", "Bearer " + phones[user]!)],
                    body: Self.overland(lat, lon + 0.001 * Double(n), second: n * 10))
                #expect(answer.status == 200, "\(answer.text)")
            }
            for n in 0..<3 {
                try await post("alice", n)
                try await post("bob", n)
            }
            var cookies: [String: (String, String)] = [:]
            for (user, password) in [
                ("alice", "alice's secret 1"), ("bob", "bob's secret 2"), ("carol", "carol's secret 3"),
            ] {
                cookies[user] = try #require(try await ViewAccountsTests.login(user, password, port: port).1)
            }
            let get = { (user: String?, path: String) in
                try await LoopbackHTTP.fetch("GET", path, port: port, headers: user.map { [cookies[$0]!] } ?? [])
            }
            for z in [13, 16] {
                for user in ["alice", "bob"] {
                    for (owner, (lat, lon)) in home {
                        let t = Self.tile(lat, lon + 0.001, z: z)
                        let rgba = try Self.pixels(try await get(user, t.path))
                        if owner == user {
                            #expect(Self.litNear(rgba, t.px, t.py), "\(user)'s own track at \(t.path)")
                        } else {
                            #expect(Self.lit(rgba) == 0, "\(user) sees \(owner)'s track at \(t.path)")
                        }
                    }
                }
            }
            // Carol has no device: her map says she has no track yet; alice's opens on her track, not bob's.
            let carols = try await get("carol", "/history").text
            #expect(carols.contains("No tracks yet") && !carols.contains("data-bounds"), "\(carols.prefix(800))")
            let alices = try await get("alice", "/history").text
            #expect(
                alices.contains(#"data-bounds="52.1,5.1"#) && !alices.contains("history-none"), "\(alices.prefix(800))")
            // A click on bob's track: bob's session for bob, nothing for alice.
            let click = "/api/history/at?lat=48.85&lon=2.351&z=16"
            #expect(try await get("alice", click).status == 404)
            let bobs = try await get("bob", click)
            #expect(bobs.status == 200 && !bobs.text.isEmpty, "\(bobs.text)")

            // More of alice's track through the receiver: her kept tile is drawn again, longer.
            let t = Self.tile(52.1, 5.101, z: 13)
            let before = Self.lit(try Self.pixels(try await get("alice", t.path)))
            for n in 3..<6 { try await post("alice", n) }
            let after = Self.lit(try Self.pixels(try await get("alice", t.path)))
            #expect(after > before, "\(before) lit pixels before, \(after) after")

            // Without a login nothing; a share link of alice's session reaches no history route.
            #expect(try await get(nil, "/history").header("Location") == "/login")
            #expect(try await get(nil, t.path).status == 401)
            #expect(try await get(nil, click).status == 401)
            let alice = try #require(try ViewAccountsTests.sessions(db).first { $0.owner == "alice" }?.id)
            let r = try await runGPSLogAsync(["share", alice], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let token = try #require(r.stdout.split(separator: "\n").last?.split(separator: "/").last.map(String.init))
            #expect(try await get(nil, "/s/" + token).status == 200)
            for path in ["/history", t.path, click] {
                let answer = try await get(nil, "/s/" + token + path)
                #expect(answer.status == 404, "\(path) under a share link: \(answer.status)")
            }
        }
    }
}

/// Chromium and Leaflet, as `make test` installs them.
private let browserReady =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")

/// The history page in headless Chromium: Leaflet loads the history tiles from serve.
@Suite(.ownThreads, .enabled(if: browserReady, "needs chromium and libjs-leaflet"))
struct HistoryPageTests {
    @Test(.timeLimit(.minutes(8)))
    func theHistoryPageLoadsItsTiles() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let sample = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(sample.status == 0, "\(sample.stderr)")
            let (serve, base) = try await WebViewTests.serve(db, folder: dir)
            defer { AccountsTests.stop(serve) }
            let dom = try WebViewTests.dom(base + "/history")
            #expect(WebViewTests.attribute("ready", of: "map", in: dom) == "true", "\(dom.prefix(3000))")
            let loaded = Int(WebViewTests.attribute("history-loaded", of: "map", in: dom) ?? "") ?? 0
            #expect(loaded > 0, "history tiles loaded")
            #expect(WebViewTests.attribute("history-errors", of: "map", in: dom) == nil)
            #expect(dom.contains("/history/tiles/"), "the tiles are the map's images")
        }
    }
}
