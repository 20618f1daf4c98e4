// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogTestSupport
import Testing

@testable import GPSLogPostgres

/// The history map of `serve --store postgres://`: given the same payloads, a SQLite serve and a PostgreSQL serve
/// draw the same pixels at every zoom (kept tiles, deep ones, filtered ones), a click opens the same session, and the
/// page opens on the same tracks; a second serve on the database writes, and the first one's kept tiles show it.
@Suite(.ownThreads)
struct HistoryPostgresTests {
    /// A van's 2,000 points across midnight UTC (the visits of two days meet), and a phone's few.
    static let payloads: [(String, (String, String)?)] = {
        var list: [(String, (String, String)?)] = []
        for batch in 0..<10 {
            list.append((Payloads.overland(device: "van", start: 1_709_077_400 + batch * 200, count: 200), nil))
        }
        for i in 0..<5 {
            list.append(
                (Payloads.ownTracks(tst: 1_709_300_000 + i * 60, latitude: 52.3 + Double(i) * 1e-3), ("jane", "phone")))
        }
        return list
    }()

    /// The tile at `z` holding the point.
    static func tile(_ z: Int, latitude: Double, longitude: Double) -> String {
        let n = Double(1 << z)
        let x = Int((longitude + 180) / 360 * n)
        let lat = latitude * .pi / 180
        let y = Int((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n)
        return "\(z)/\(x)/\(y)"
    }

    @Test(.timeLimit(.minutes(10)))
    func postgreSQLDrawsTheSameHistoryAsSQLite() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let url = cluster.socketURL("gpslog")
                let sqlite = try ServeStoreProcess(folder: dir + "/sqlite", store: nil)
                let postgres = try ServeStoreProcess(folder: dir + "/postgres", store: url)
                for (body, device) in Self.payloads {
                    for serve in [sqlite, postgres] {
                        let answer = try await serve.post(body, ownTracks: device)
                        #expect(answer.status == 200, "\(answer)")
                    }
                }
                // The van's first point (before midnight) and its last (after).
                let (vanLat, vanLon) = (52.1 + 0.074, 4.3 + 0.074)
                let paths = [
                    "/history/tiles/0/0/0.png",
                    "/history/tiles/\(Self.tile(5, latitude: vanLat, longitude: vanLon)).png",
                    "/history/tiles/\(Self.tile(13, latitude: vanLat, longitude: vanLon)).png",
                    "/history/tiles/\(Self.tile(13, latitude: 52.1 + 0.093, longitude: 4.3 + 0.093)).png",
                    "/history/tiles/\(Self.tile(16, latitude: vanLat, longitude: vanLon)).png",
                    "/history/tiles/\(Self.tile(13, latitude: vanLat, longitude: vanLon)).png?style=heat",
                    "/history/tiles/\(Self.tile(12, latitude: vanLat, longitude: vanLon)).png?style=visited",
                    // Filtered: the van before midnight only, the phone's device, a mode nobody has.
                    "/history/tiles/\(Self.tile(13, latitude: vanLat, longitude: vanLon)).png?to=2024-02-27T23:55:00Z",
                    "/history/tiles/\(Self.tile(10, latitude: 52.3, longitude: 4.89)).png?device=phone",
                ]
                let empty = try await ViewPostgresTests.get(postgres, "/history/tiles/0/0/0.png?mode=car")
                #expect(empty.status == 200)
                // Twice: drawn the first time, kept the second.
                for round in 0..<2 {
                    for path in paths {
                        let a = try await ViewPostgresTests.get(sqlite, path)
                        let b = try await ViewPostgresTests.get(postgres, path)
                        #expect(a.status == 200 && b.status == 200, "\(path): \(a.status) \(b.status)")
                        #expect(a.body == b.body, "\(path), round \(round): the two stores drew different pixels")
                        #expect(b.body != empty.body, "\(path): no track drawn")
                    }
                }
                // Before midnight only: fewer pixels than the whole track in the same tile.
                let whole = try await ViewPostgresTests.get(postgres, paths[2])
                #expect(whole.body != (try await ViewPostgresTests.get(postgres, paths[7])).body)

                // A click on the van opens the van's session; on empty land, nothing.
                let (_, ids) = try await ViewPostgresTests.sessions(postgres)
                let at = try await ViewPostgresTests.json(postgres, "/api/history/at?lat=\(vanLat)&lon=\(vanLon)&z=15")
                #expect((at as? [String: String])?["id"] == ids["van"], "\(at) \(ids)")
                let nothing = try await ViewPostgresTests.get(postgres, "/api/history/at?lat=10&lon=10&z=15")
                #expect(nothing.status == 404)

                // The page opens on the same tracks.
                let pages = [
                    try await ViewPostgresTests.get(sqlite, "/history"),
                    try await ViewPostgresTests.get(postgres, "/history"),
                ]
                let bounds = pages.map { page in
                    String(decoding: page.body, as: UTF8.self).firstMatch(of: /data-bounds="([^"]*)"/).map {
                        String($0.1)
                    }
                }
                #expect(pages[1].status == 200 && bounds[1] != nil && bounds[0] == bounds[1], "\(bounds)")

                // A second serve on the database receives a new track far away; the first serve's kept world tile
                // shows it, as the SQLite serve's does.
                let before = try await ViewPostgresTests.get(postgres, paths[0])
                let second = try ServeStoreProcess(folder: dir + "/second", store: url)
                let far = Payloads.overland(device: "van", start: 1_709_200_000, count: 100, latitude: 40.1)
                for serve in [sqlite, second] {
                    let answer = try await serve.post(far)
                    #expect(answer.status == 200, "\(answer)")
                }
                let a = try await ViewPostgresTests.get(sqlite, paths[0])
                let b = try await ViewPostgresTests.get(postgres, paths[0])
                #expect(b.body != before.body, "the first serve kept its world tile after the second one's write")
                #expect(a.body == b.body, "the world tile after a write")
            }
        }
    }

    /// One serve draws and keeps the history's tiles while another writes into the same tiles; once the writes end,
    /// every tile the first keeps shows every point, as a SQLite serve given the same payloads draws it: a tile drawn
    /// from visits a write then changed is never kept after the write dropped it.
    @Test(.timeLimit(.minutes(10)))
    func tilesDrawnWhileAnotherServeWritesShowEveryWrite() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let url = cluster.socketURL("gpslog")
                let drawing = try ServeStoreProcess(folder: dir + "/drawing", store: url)
                let writing = try ServeStoreProcess(folder: dir + "/writing", store: url)
                let sqlite = try ServeStoreProcess(folder: dir + "/sqlite", store: nil)
                let (lat, lon) = (52.1 + 0.074, 4.3 + 0.074)
                let paths = [0, 8, 12, 13].map { "/history/tiles/\(Self.tile($0, latitude: lat, longitude: lon)).png" }
                let batches = (0..<30).map {
                    Payloads.overland(device: "van", start: 1_709_077_400 + $0 * 40, count: 40)
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for body in batches {
                            let answer = try await writing.post(body)
                            #expect(answer.status == 200, "\(answer)")
                        }
                    }
                    group.addTask {
                        for round in 0..<40 {
                            let answer = try await ViewPostgresTests.get(drawing, paths[round % paths.count])
                            #expect(answer.status == 200)
                        }
                    }
                    try await group.waitForAll()
                }
                for body in batches { _ = try await sqlite.post(body) }
                for path in paths {
                    let a = try await ViewPostgresTests.get(sqlite, path)
                    let b = try await ViewPostgresTests.get(drawing, path)
                    #expect(a.body == b.body, "\(path): the kept tile misses writes")
                }
            }
        }
    }

    /// The kept tiles' locks, held here from another connection: a drawing of a tile waits for its lock (so a count
    /// of new visits cannot drop the tile between the drawing's reads and its keeping), and a count of new visits
    /// waits for the locks of the tiles it drops (so it drops what a drawing that read the old visits kept).
    @Test(.timeLimit(.minutes(10)))
    func drawingAndCountingTakeTheTilesLocks() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let url = cluster.socketURL("gpslog")
                let drawing = try ServeStoreProcess(folder: dir + "/drawing", store: url)
                let answer = try await drawing.post(Payloads.overland(device: "van", start: 1_709_077_400, count: 200))
                #expect(answer.status == 200)
                // Counts the visits; the tile has no track, so nothing is drawn or locked.
                #expect(try await ViewPostgresTests.get(drawing, "/history/tiles/13/0/0.png").status == 200)
                let database = try PostgresDatabase(try PostgresLocation(url: url))
                defer { database.close() }
                let waits = { (lock: (Int32, Int32), mode: String) throws -> Bool in
                    try !database.query(
                        """
                        SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid::int8 = \(lock.0)
                        AND objid::int8 = \(lock.1) AND objsubid = 2 AND mode = '\(mode)'
                        """, doing: "reading the locks"
                    ).isEmpty
                }
                let (lat, lon) = (52.1 + 0.074, 4.3 + 0.074)
                let tile = Self.tile(13, latitude: lat, longitude: lon).split(separator: "/").map { Int($0)! }
                let z13 = PostgresSessionReader.historyTileLock(z: 13, x: tile[1], y: tile[2])
                try database.query("SELECT pg_advisory_lock(\(z13.0), \(z13.1))", doing: "locking a tile")
                let drawn = Task {
                    try await ViewPostgresTests.get(drawing, "/history/tiles/13/\(tile[1])/\(tile[2]).png")
                }
                #expect(
                    try await waitUntilAsync(timeout: 60) { try waits(z13, "ShareLock") }, "the drawing took no lock")
                try database.query("SELECT pg_advisory_unlock(\(z13.0), \(z13.1))", doing: "unlocking a tile")
                #expect(try await drawn.value.status == 200)

                let world = PostgresSessionReader.historyTileLock(z: 0, x: 0, y: 0)
                try database.query("SELECT pg_advisory_lock_shared(\(world.0), \(world.1))", doing: "locking a tile")
                let more = try await drawing.post(Payloads.overland(device: "van", start: 1_709_077_600, count: 10))
                #expect(more.status == 200)
                let counted = Task { try await ViewPostgresTests.get(drawing, "/history/tiles/13/0/0.png") }
                #expect(
                    try await waitUntilAsync(timeout: 60) { try waits(world, "ExclusiveLock") },
                    "the count dropped the world tile without its lock")
                try database.query("SELECT pg_advisory_unlock_shared(\(world.0), \(world.1))", doing: "unlocking")
                #expect(try await counted.value.status == 200)
            }
        }
    }
}
