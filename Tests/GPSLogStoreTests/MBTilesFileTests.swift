// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogStore
import GPSLogTestSupport
import Testing

/// The reader of a user's MBTiles file (`serve --tiles FILE`): rows flipped from XYZ to TMS, the metadata the map
/// uses, a clear refusal of what is no raster MBTiles file, many callers at once, and never a write to the file.
/// (`MBTilesServeTests` reads a file GDAL made; these make theirs with SQLite, to reach every corner.)
@Suite(.ownThreads) struct MBTilesFileTests {
    /// An MBTiles file with `tiles` as (z, column, TMS row, bytes) and `metadata` rows.
    static func make(_ path: String, tiles: [(Int, Int, Int, [UInt8])], metadata: [String: String]) throws {
        let db = try Database(path: path)
        defer { db.close() }
        try db.execute(
            """
            CREATE TABLE metadata (name TEXT, value TEXT);
            CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
            CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
            """)
        for (name, value) in metadata { try db.run("INSERT INTO metadata VALUES (?, ?)", [.text(name), .text(value)]) }
        for (z, x, row, bytes) in tiles {
            try db.run(
                "INSERT INTO tiles VALUES (?, ?, ?, ?)",
                [.integer(Int64(z)), .integer(Int64(x)), .integer(Int64(row)), .blob(bytes)])
        }
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    @Test func rowsAreFlippedAndTheMetadataRead() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/region.mbtiles"
            // Zoom 2: TMS row 3 is the northmost, XYZ y 0.
            try Self.make(
                path, tiles: [(2, 1, 3, Self.png + [1]), (2, 1, 0, Self.png + [2]), (3, 0, 0, Self.png + [3])],
                metadata: [
                    "name": "Region", "format": "JPEG", "bounds": "7.49, 46.49, 7.51, 46.51",
                    "attribution": "<a href=\"https://example.org\">Me</a>",
                ])
            let file = try MBTilesFile(path: path)
            #expect(try file.tile(z: 2, x: 1, y: 0) == Self.png + [1])
            #expect(try file.tile(z: 2, x: 1, y: 3) == Self.png + [2])
            #expect(try file.tile(z: 2, x: 0, y: 0) == nil)
            #expect(try file.tile(z: 3, x: 0, y: 7) == Self.png + [3])
            let m = file.metadata
            #expect(m.format == .jpg && m.format.contentType == "image/jpeg")
            #expect(m.bounds == [7.49, 46.49, 7.51, 46.51])
            #expect(m.minZoom == 2 && m.maxZoom == 3, "no minzoom or maxzoom rows: the tiles' own")
            #expect(m.name == "Region" && m.attribution == "<a href=\"https://example.org\">Me</a>")
        }
    }

    /// What is wrong is said with the file's name: no file, no database, no `tiles` table, vector tiles, a format or
    /// bounds the map cannot use.
    @Test func aFileThatIsNoRasterMBTilesIsRefusedSayingWhy() throws {
        try withTemporaryDirectory { dir in
            func refusal(_ path: String) -> String {
                do {
                    _ = try MBTilesFile(path: path)
                    return "opened"
                } catch { return error.errorDescription ?? "\(error)" }
            }
            #expect(refusal(dir + "/gone.mbtiles").contains("--tiles \(dir)/gone.mbtiles: no such file"))
            try "not a database\n".write(toFile: dir + "/text.mbtiles", atomically: true, encoding: .utf8)
            #expect(
                refusal(dir + "/text.mbtiles").contains(
                    "\(dir)/text.mbtiles is not an MBTiles file: it is not a SQLite"))
            let other = try Database(path: dir + "/other.sqlite")
            try other.execute("CREATE TABLE places (name TEXT)")
            other.close()
            #expect(
                refusal(dir + "/other.sqlite").contains(
                    "other.sqlite is not an MBTiles file: it has no `tiles` table (its tables: places)"))
            let cases: [(String, String, String)] = [
                ("format", "pbf", "this file holds vector tiles"), ("format", "gif", "expected png, jpg or webp"),
                ("bounds", "7.49,46.49,7.51", "expected west,south,east,north"),
                ("maxzoom", "99", "expected a zoom level from 0 to 30"),
            ]
            for (i, (field, value, expected)) in cases.enumerated() {
                let path = dir + "/bad\(i).mbtiles"
                try Self.make(path, tiles: [(0, 0, 0, Self.png)], metadata: [field: value])
                let message = refusal(path)
                #expect(message.contains("bad\(i).mbtiles: metadata \(field) is '\(value)'"), "\(message)")
                #expect(message.contains(expected), "\(message)")
            }
            // No format row: the first tile's bytes tell.
            try Self.make(dir + "/webp.mbtiles", tiles: [(0, 0, 0, Array("RIFF\0\0\0\0WEBPVP8 ".utf8))], metadata: [:])
            #expect(try MBTilesFile(path: dir + "/webp.mbtiles").metadata.format == .webp)
        }
    }

    /// Eight callers at once, each reading every tile many times, get the right bytes; the file is read-only and
    /// left byte for byte as it was, with no journal beside it.
    @Test func manyCallersReadAReadOnlyFileAndNeverWriteIt() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/region.mbtiles"
            var tiles: [(Int, Int, Int, [UInt8])] = []
            for x in 0..<16 { for row in 0..<16 { tiles.append((4, x, row, Self.png + [UInt8(x), UInt8(row)])) } }
            try Self.make(path, tiles: tiles, metadata: ["format": "png"])
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let file = try MBTilesFile(path: path)
            let wrong = TileCounter()
            let rounds = 20
            let start = Date()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<rounds {
                    for x in 0..<16 {
                        for y in 0..<16
                        where (try? file.tile(z: 4, x: x, y: y)) != Self.png + [UInt8(x), UInt8(15 - y)] {
                            wrong.add()
                        }
                    }
                }
            }
            let fetches = 8 * rounds * 256
            let micros = Date().timeIntervalSince(start) * 1e6 / Double(fetches)
            print("MBTilesFile: \(fetches) tile fetches by 8 callers, \(String(format: "%.1f", micros)) µs each")
            #expect(wrong.value == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            let beside = try FileManager.default.contentsOfDirectory(atPath: dir)
            #expect(beside == ["region.mbtiles"], "\(beside)")
        }
    }
}

/// A count several threads add to.
private final class TileCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
