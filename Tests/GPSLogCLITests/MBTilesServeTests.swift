// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// GDAL and the SQLite shell, as `make test` installs them: GDAL makes the MBTiles file (an independent producer),
/// the shell reads it back.
private let toolsReady =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal_translate")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdaladdo")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")

/// `serve --tiles FILE.mbtiles`: a real `gpslog serve` serves the tiles of an MBTiles file GDAL made (rows flipped
/// from the file's TMS order to the map's XYZ), refuses bad addresses and bad files, and the session page's map
/// loads its tiles from serve alone; with a tile server that cannot be reached, the page says so in one line.
@Suite(.ownThreads, .enabled(if: toolsReady, "needs gdal_translate (gdal-bin) and sqlite3"))
struct MBTilesServeTests {
    /// A 512×512 raster over the walk of `WebViewTests.walk` (7.49-7.51 E, 46.49-46.51 N), red growing southward and
    /// green eastward so that every tile differs, as an MBTiles file made by `gdal_translate -of MBTILES` (zoom 15,
    /// PNG tiles) and `gdaladdo` (zooms 14 and 13).
    static func makeMBTiles(_ dir: String) throws -> String {
        var ppm = Data("P6\n512 512\n255\n".utf8)
        for y in 0..<512 { for x in 0..<512 { ppm.append(contentsOf: [UInt8(y / 2), UInt8(x / 2), 128]) } }
        try ppm.write(to: URL(fileURLWithPath: dir + "/region.ppm"))
        let path = dir + "/region.mbtiles"
        let made = try runTool(
            "/usr/bin/gdal_translate",
            [
                "-q", "-of", "MBTILES", "-a_srs", "EPSG:4326", "-a_ullr", "7.49", "46.51", "7.51", "46.49", "-co",
                "NAME=Test region", dir + "/region.ppm", path,
            ])
        try #require(made.status == 0 && FileManager.default.fileExists(atPath: path), "gdal_translate failed")
        // Two zooms out, as docs/web-view.md says to make them.
        let overviews = try runTool("/usr/bin/gdaladdo", ["-q", "-r", "average", path, "2", "4"])
        try #require(overviews.status == 0, "gdaladdo failed")
        return path
    }

    /// Every tile of the file as the SQLite shell reads it: zoom, column, TMS row and the bytes in hex.
    static func tiles(in path: String) throws -> [(z: Int, x: Int, row: Int, hex: String)] {
        let out = try runTool(
            "/usr/bin/sqlite3",
            ["-readonly", path, "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles"])
        return out.output.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "|")
            guard f.count == 4, let z = Int(f[0]), let x = Int(f[1]), let row = Int(f[2]) else { return nil }
            return (z, x, row, String(f[3]))
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    @Test(.timeLimit(.minutes(10)))
    func everyTileComesFlippedWithItsTypeAndBadAddressesAreRefused() async throws {
        try await withTemporaryDirectory { dir in
            let file = try Self.makeMBTiles(dir)
            // Metadata attribution is HTML by the specification, and from a file: the page gets text and links.
            let attribution =
                #"<a href="https://example.org/maps" onclick="steal()">Maps &copy; Me</a> "#
                + #"<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">x</a>"#
            let sql = "INSERT INTO metadata VALUES ('attribution', '\(attribution)')"
            try #require(try runTool("/usr/bin/sqlite3", [file, sql]).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: file))
            let tiles = try Self.tiles(in: file)
            try #require(
                tiles.count > 10 && Set(tiles.map(\.z)) == [13, 14, 15], "\(tiles.map { ($0.z, $0.x, $0.row) })")

            let db = dir + "/gpslog.sqlite"
            try WebViewTests.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
            let imported = try await runGPSLogAsync(["import", dir + "/walk.gpx"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            let (serve, port) = try await LoopbackHTTP.serve(["--tiles", file], database: db, folder: dir + "/serve")

            // Asked in the map's XYZ order (y from the north), each tile is the file's row 2^z-1-y: asked unflipped,
            // none would be found (the file's rows and their mirrors do not overlap at these zooms).
            for t in tiles {
                let y = (1 << t.z) - 1 - t.row
                let answer = try await LoopbackHTTP.fetch("GET", "/tiles/\(t.z)/\(t.x)/\(y)", port: port)
                #expect(answer.status == 200, "/tiles/\(t.z)/\(t.x)/\(y): \(answer.status)")
                #expect(Self.hex(answer.body) == t.hex, "/tiles/\(t.z)/\(t.x)/\(y)")
                #expect(answer.header("Content-Type") == "image/png")
                #expect(answer.header("Cache-Control")?.contains("max-age=") == true)
            }
            // A tile the file lacks is a 404 (Leaflet shows nothing there), the file's row asked as y among them;
            // an address off the grid is a 400.
            let first = tiles[0]
            try #require(
                !tiles.contains { $0.z == first.z && $0.x == first.x && $0.row == (1 << first.z) - 1 - first.row })
            for path in ["/tiles/15/0/0", "/tiles/0/0/0", "/tiles/\(first.z)/\(first.x)/\(first.row)"] {
                let answer = try await LoopbackHTTP.fetch("GET", path, port: port)
                #expect(answer.status == 404, "\(path): \(answer.status)")
            }
            for path in [
                "/tiles/31/0/0", "/tiles/2/4/0", "/tiles/2/0/4", "/tiles/z/0/0", "/tiles/2/-1/0", "/tiles/2/0/1.png",
                "/tiles/2/0/99999999999999999999", "/tiles/02/0/+1",
            ] {
                let answer = try await LoopbackHTTP.fetch("GET", path, port: port)
                #expect(answer.status == 400, "\(path): \(answer.status)")
            }
            // Behind the view's rule like its pages: a page that pointed its own name at 127.0.0.1 gets nothing.
            let rebound = try await LoopbackHTTP.fetch(
                "GET", "/tiles/\(first.z)/\(first.x)/\((1 << first.z) - 1 - first.row)", port: port,
                headers: [("Host", "evil.example")])
            #expect(rebound.status == 401 && rebound.body.isEmpty)

            // The page hands Leaflet serve's own tiles, the file's zooms and bounds, and its credit cut down to text
            // and an http(s) link.
            let sessions = try await LoopbackHTTP.fetch("GET", "/api/sessions", port: port)
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(sessions.body)) as? [[String: Any]])?.first?["id"]
                    as? String)
            let page = try await LoopbackHTTP.fetch("GET", "/sessions/\(id)", port: port).text
            #expect(page.contains(#"data-tiles="/tiles/{z}/{x}/{y}""#), "\(page.prefix(1500))")
            #expect(page.contains(#"data-tiles-minzoom="13" data-tiles-maxzoom="15" data-tiles-bounds="7.49,46.49"#))
            #expect(
                page.contains(
                    #"data-attribution="&lt;a href=&quot;https://example.org/maps&quot; rel=&quot;noopener noreferrer&quot;&gt;Maps © Me&lt;/a&gt; x""#
                ), "\(page.prefix(1500))")
            for hostile in ["onclick", "onerror", "javascript:", "&lt;script", "&lt;img", "alert("] {
                #expect(!page.contains(hostile), "\(hostile)")
            }

            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "the file is never written")
            #expect(serve.process.isRunning && !serve.stderr.contains("failed"), "\(serve.stderr)")
        }
    }

    /// A file that is no MBTiles file stops serve before it listens, with the file's name and what is wrong.
    @Test(.timeLimit(.minutes(5)))
    func aBadFileIsRefusedAtStartupNamingIt() async throws {
        try await withTemporaryDirectory { dir in
            try "my notes\n".write(toFile: dir + "/notes.mbtiles", atomically: true, encoding: .utf8)
            try #require(
                try runTool("/usr/bin/sqlite3", [dir + "/places.db", "CREATE TABLE places (name TEXT)"]).status == 0)
            let vector = try Self.makeMBTiles(dir)
            try #require(
                try runTool("/usr/bin/sqlite3", [vector, "UPDATE metadata SET value = 'pbf' WHERE name = 'format'"])
                    .status == 0)
            let cases = [
                (dir + "/notes.mbtiles", "is not an MBTiles file: it is not a SQLite database"),
                (dir + "/places.db", "is not an MBTiles file: it has no `tiles` table (its tables: places)"),
                (vector, "metadata format is 'pbf', expected raster tiles (png, jpg or webp)"),
                (dir + "/missing.mbtiles", ": no such file"),
            ]
            for (file, reason) in cases {
                let r = try await runGPSLogAsync(
                    ["serve", "--listen", "127.0.0.1:0", "--tiles", file], database: dir + "/gpslog.sqlite", folder: dir
                )
                #expect(r.status != 0 && !r.stdout.contains("Listening on"), "\(file): \(r.status) \(r.stdout)")
                #expect(r.stderr.contains("--tiles \(file)") && r.stderr.contains(reason), "\(r.stderr)")
            }
        }
    }
}

/// Chromium, the libraries and GDAL.
private let browserAndToolsReady =
    toolsReady && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/dygraphs/dygraph.min.js")

/// The session page in headless Chromium with an offline basemap, and with a tile server that cannot be reached.
@Suite(
    .ownThreads,
    .enabled(if: browserAndToolsReady, "needs chromium, libjs-leaflet, libjs-dygraphs, gdal-bin and sqlite3"))
struct MBTilesPageTests {
    /// Every `src` the page's DOM holds (scripts, styles' links are `href`, images and tiles are `src`).
    static func sources(_ dom: String) -> [String] {
        dom.components(separatedBy: " src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    @Test(.timeLimit(.minutes(8)))
    func theMapLoadsItsTilesFromServeAloneAndSaysWhenATileServerFails() async throws {
        try await withTemporaryDirectory { dir in
            let file = try MBTilesServeTests.makeMBTiles(dir)
            let db = dir + "/gpslog.sqlite"
            try WebViewTests.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
            let imported = try await runGPSLogAsync(["import", dir + "/walk.gpx"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            let empty: String
            do {
                let store = try Store(path: db)
                defer { store.close() }
                let start = Timestamp(milliseconds: 1_764_000_000_000)
                empty = try store.createSession(name: "Nothing yet", start: start).id
                // Ended: an open session's page follows it live, and Chromium would wait for its stream to end.
                try store.finishSession(id: empty, end: start)
            }
            let (serve, port) = try await LoopbackHTTP.serve(["--tiles", file], database: db, folder: dir + "/serve")
            let base = "http://127.0.0.1:\(port)"
            let sessions = try await LoopbackHTTP.fetch("GET", "/api/sessions", port: port)
            let walk = try #require(
                (try JSONSerialization.jsonObject(with: Data(sessions.body)) as? [[String: Any]])?
                    .first { $0["name"] as? String == "Walk" }?["id"] as? String)

            let page = try WebViewTests.dom(base + "/sessions/" + walk)
            #expect(page.contains("data-ready=\"true\""), "\(page.prefix(3000))")
            #expect(WebViewTests.attribute("segments", of: "map", in: page) == "2")
            let loaded = Int(WebViewTests.attribute("tiles-loaded", of: "map", in: page) ?? "") ?? 0
            #expect(loaded > 0, "tiles drawn from the file")
            // Every request the page made is to serve: each src is a path of its own (or inline data).
            let sources = Self.sources(page)
            #expect(sources.contains { $0.hasPrefix("/tiles/15/") }, "\(sources)")
            #expect(sources.allSatisfy { $0.hasPrefix("/") || $0.hasPrefix("data:") }, "\(sources)")
            #expect(!page.contains("id=\"map-note\""), "a file's tiles are no failing server")

            // A session with no point yet: the map shows the file's region, not the whole world (where the layer's
            // bounds would ask no tile at all).
            let nothing = try WebViewTests.dom(base + "/sessions/" + empty)
            let shown = Int(WebViewTests.attribute("tiles-loaded", of: "map", in: nothing) ?? "") ?? 0
            #expect(shown > 0, "\(nothing.prefix(3000))")
            _ = serve

            // A tile server nobody answers on: one line under the map, the track drawn, no tile left in the page.
            let (down, downPort) = try await LoopbackHTTP.serve(
                ["--tiles", "http://127.0.0.1:1/{z}/{x}/{y}.png"], database: db, folder: dir + "/down")
            let offline = try WebViewTests.dom("http://127.0.0.1:\(downPort)/sessions/" + walk)
            #expect(offline.contains("data-ready=\"true\""), "\(offline.prefix(3000))")
            #expect(WebViewTests.attribute("segments", of: "map", in: offline) == "2")
            #expect(Int(WebViewTests.attribute("tile-errors", of: "map", in: offline) ?? "") ?? 0 > 0)
            #expect(offline.components(separatedBy: "id=\"map-note\"").count == 2, "one line")
            #expect(
                offline.contains(
                    "Map tiles could not be loaded from 127.0.0.1:1: the track is drawn without a basemap; see serve --tiles."
                ), "\(offline.prefix(4000))")
            #expect(!offline.contains("class=\"leaflet-tile"), "the failed layer is gone")
            _ = down
        }
    }
}
