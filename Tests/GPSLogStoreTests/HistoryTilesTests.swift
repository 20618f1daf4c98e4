// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The history map's kept tiles equal tiles drawn from a full recount of the entries after every kind of write:
/// appends in batches, a write into the middle of a track, a split, a deletion; and a write drops the kept tiles
/// it touches at every level.
@Suite(.ownThreads)
struct HistoryTilesTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// The tiles over the track of `makeEntries(step: 50)` (north from 52°N 5°E) at zooms 9, 11 and 13.
    func tiles(_ store: Store) throws -> [HistoryRaster] {
        var out: [HistoryRaster] = []
        for z in [9, 11, 13] {
            for lat in [52.0, 52.2, 52.4] {
                let p = HistoryRaster.pixel(latitude: lat, longitude: 5, zoom: z)
                out.append(try store.historyTile(z: z, x: Int(p.x) / 256, y: Int(p.y) / 256, viewer: .admin))
            }
        }
        return out
    }

    /// The same tiles after every session's visits are counted again from the entries (no tile kept).
    func recounted(_ store: Store) throws -> [HistoryRaster] {
        try store.database.run("INSERT OR IGNORE INTO HistoryStale (Session) SELECT Key FROM Sessions")
        return try tiles(store)
    }

    func count(_ store: Store, _ sql: String) throws -> Int64 { try store.database.scalar(sql)?.int64 ?? -1 }

    @Test func batchesKeepTheTilesOfARecountAndDropTheKeptOnes() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Walk", start: start)
            let entries = makeEntries(count: 1000, start: start, step: 50)
            try store.append(Array(entries[0..<400]), to: s.id)
            // Drawn and kept, then written into: the next tiles must show the new part.
            let early = try tiles(store)
            #expect(try count(store, "SELECT count(*) FROM HistoryTiles") > 0)
            for batch in stride(from: 400, to: 1000, by: 150) {
                try store.append(Array(entries[batch..<min(batch + 150, 1000)]), to: s.id)
            }
            let kept = try tiles(store)
            #expect(kept != early, "the writes changed the tiles")
            #expect(kept.contains { !$0.isEmpty })
            // One visit row a tile: the batches extended the rows of the tiles they came back to.
            let visits = try count(store, "SELECT count(*) FROM HistorySpans")
            let tilesTouched = try count(store, "SELECT count(DISTINCT X || ',' || Y) FROM HistorySpans")
            #expect(visits == tilesTouched, "\(visits) rows for \(tilesTouched) tiles")
            #expect(try recounted(store) == kept)
            #expect(try count(store, "SELECT count(*) FROM HistoryStale") == 0)
        }
    }

    @Test func anImportIsCountedOnceAndDropsOnlyTheTilesItsTrackTouches() throws {
        try withTemporaryStore { store, _ in
            // A kept walk far away (the Alps): an import in the Netherlands must leave its tiles kept.
            let alps = try store.createSession(name: "Alps", start: start)
            var walk = makeEntries(count: 300, start: start, step: 5, seed: 3)
            for i in walk.indices { (walk[i].latitude, walk[i].longitude) = (46.5 + Double(i) * 1e-5, 7.5) }
            try store.append(walk, to: alps.id)
            let p = HistoryRaster.pixel(latitude: 46.5, longitude: 7.5, zoom: 13)
            let alpsTile = try store.historyTile(z: 13, x: Int(p.x) / 256, y: Int(p.y) / 256, viewer: .admin)
            #expect(!alpsTile.isEmpty)
            _ = try tiles(store)
            let keptAlps = "SELECT count(*) FROM HistoryTiles WHERE Z = 13 AND X = \(Int(p.x) / 256)"
            #expect(try count(store, keptAlps) == 1)

            let imported = try store.createSession(name: "Import", start: start)
            let entries = makeEntries(count: 5000, start: start, step: 50)
            try store.bulkWrite {
                for batch in stride(from: 0, to: 5000, by: 2000) {
                    _ = try store.appendInTransaction(Array(entries[batch..<min(batch + 2000, 5000)]), to: imported.id)
                }
            }
            #expect(try count(store, "SELECT count(*) FROM HistoryStale") == 1, "the import waits to be counted")
            #expect(try count(store, "SELECT count(*) FROM HistorySpans WHERE Session = \(imported.key)") == 0)
            let drawn = try tiles(store)
            #expect(try count(store, "SELECT count(*) FROM HistoryStale") == 0)
            #expect(try count(store, keptAlps) == 1, "the far walk's tile is still kept")
            #expect(drawn.contains { !$0.isEmpty })
            #expect(try recounted(store) == drawn)
            #expect(try store.checkHistory().sessionsDiffering.isEmpty)
        }
    }

    @Test func middleWritesSplitsAndDeletionsRedrawFromTheEntries() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Walk", start: start)
            let entries = makeEntries(count: 600, start: start, step: 50)
            // Every other point first, the rest after: the second batch falls between old points.
            try store.append(stride(from: 0, to: 600, by: 2).map { entries[$0] }, to: s.id)
            _ = try tiles(store)
            var moved = stride(from: 1, to: 600, by: 2).map { entries[$0] }
            for i in moved.indices { moved[i].longitude += 0.01 }
            try store.append(moved, to: s.id)
            #expect(try count(store, "SELECT count(*) FROM HistoryStale") == 1, "a middle write counts again")
            let zigzag = try tiles(store)
            #expect(try recounted(store) == zigzag)

            _ = try store.split(s, at: entries[300].time)
            let split = try tiles(store)
            #expect(try recounted(store) == split)

            #expect(try store.deleteSession(id: s.id) > 0)
            let after = try tiles(store)
            #expect(try recounted(store) == after)
            #expect(after != split, "the deleted half is gone")
        }
    }

    @Test func aUserSeesOnlyTheirOwnTracksAndATrackGivenToThemAppears() throws {
        try withTemporaryStore { store, _ in
            try store.database.run("INSERT INTO Users (Key, Name, CreatedAt) VALUES (7, 'alice', 0)")
            let mine = try store.createSession(name: "Mine", start: start)
            try store.append(makeEntries(count: 300, start: start, step: 50), to: mine.id)
            try store.database.run("UPDATE Sessions SET Owner = 7 WHERE Key = ?", [.integer(mine.key)])
            let other = try store.createSession(name: "Other", start: start)
            var beside = makeEntries(count: 300, start: start, step: 50, seed: 2)
            for i in beside.indices { beside[i].longitude += 0.02 }
            try store.append(beside, to: other.id)
            let p = HistoryRaster.pixel(latitude: 52.05, longitude: 5, zoom: 11)
            let tile = { (viewer: SessionViewer) in
                try store.historyTile(z: 11, x: Int(p.x) / 256, y: Int(p.y) / 256, viewer: viewer)
            }
            let own = try tile(.user(7))
            let all = try tile(.admin)
            #expect(!own.isEmpty && own != all, "alice sees her track, not the other")
            #expect(try tile(.user(8)).isEmpty)
            #expect(try tile(.shared(mine.key)).isEmpty, "a share link sees no history")
            // Alice's tile is kept now; the other session given to her must appear in it.
            try store.database.run("UPDATE Sessions SET Owner = 7 WHERE Key = ?", [.integer(other.key)])
            #expect(try tile(.user(7)) == tile(.admin))
        }
    }

    /// Every track point of `tracks` drawn into tile `z/x/y` as the history map draws a track: one line from each
    /// point to the next (the tracks here have no gap).
    func drawnFromEveryPoint(_ tracks: [[Entry]], z: Int, x: Int, y: Int) -> HistoryRaster {
        var raster = HistoryRaster()
        let origin = (x: Double(x * HistoryRaster.size), y: Double(y * HistoryRaster.size))
        for track in tracks {
            var previous: (x: Double, y: Double)?
            for e in track {
                let g = HistoryRaster.pixel(latitude: e.latitude, longitude: e.longitude, zoom: z)
                let p = (x: g.x - origin.x, y: g.y - origin.y)
                raster.line(previous ?? p, p)
                previous = p
            }
        }
        return raster
    }

    @Test func aDeepTileReadsOnlyThePassesNearItAndDrawsThemWhole() throws {
        try withTemporaryStore { store, _ in
            // Two walks north, 1.4 km apart: one zoom-13 tile holds both, their zoom-16 tiles differ.
            var tracks: [[Entry]] = []
            for (name, longitude, seed) in [("West", 4.975, UInt64(1)), ("East", 4.995, 2)] {
                let s = try store.createSession(name: name, start: start)
                var walk = makeEntries(count: 500, start: start, step: 5, seed: seed)
                for i in walk.indices { walk[i].longitude = longitude }
                try store.append(walk, to: s.id)
                tracks.append(walk)
            }
            let west = try #require(try store.sessions().first { $0.name == "West" })
            let at = { (z: Int) in
                let p = HistoryRaster.pixel(latitude: 52.01, longitude: 4.975, zoom: z)
                return (x: Int(p.x) / HistoryRaster.size, y: Int(p.y) / HistoryRaster.size)
            }
            let sessionsIn = { (z: Int) in
                Set(
                    try store.historySpans(store.spanRange(z: z, x: at(z).x, y: at(z).y), scope: nil, filter: .init())
                        .map(\.session))
            }
            #expect(try sessionsIn(13).count == 2, "the zoom-13 tile holds both walks")
            for z in 14...18 {
                #expect(try sessionsIn(z) == [west.key], "zoom \(z) reads only the west walk's visits")
                let tile = try store.historyTile(z: z, x: at(z).x, y: at(z).y, viewer: .admin)
                #expect(!tile.isEmpty)
                #expect(tile == drawnFromEveryPoint(tracks, z: z, x: at(z).x, y: at(z).y), "zoom \(z)")
            }
        }
    }

    @Test func visitsJoinWithinTenMinutesAndSplitAfter() {
        // Points six minutes or more apart (no line between them) in two tiles, back and forth.
        let minute: Int64 = 60_000
        var visits = HistoryVisits()
        for (at, latitude) in [(0, 52.0), (6, 52.0), (12, 52.1), (18, 52.0), (24, 52.0), (30, 52.1), (31, 52.1)] {
            visits.add(time: Int64(at) * minute, latitude: latitude, longitude: 5)
        }
        let tile = { (latitude: Double) in
            let p = HistoryRaster.pixel(latitude: latitude, longitude: 5, zoom: HistoryRaster.spanZoom)
            return HistoryVisits.pack(Int(p.x) / HistoryRaster.size, Int(p.y) / HistoryRaster.size)
        }
        let spans = visits.spans.mapValues { $0.map { [$0.first / minute, $0.last / minute] } }
        #expect(spans == [tile(52.0): [[0, 6], [18, 24]], tile(52.1): [[12, 12], [30, 31]]], "\(spans)")
    }

    @Test func linesAreCutToTheTileAndTheStoredFormRoundTrips() throws {
        var raster = HistoryRaster()
        raster.line((-100, -100), (400, 400))
        #expect(raster.litPixels == 256)
        raster.line((300, 10), (400, 10))
        #expect(raster.litPixels == 256, "a line outside the tile draws nothing")
        let bytes = raster.sparse
        #expect(bytes.count == 256 * 6)
        #expect(bytes.withUnsafeBytes { HistoryRaster(sparse: $0) } == raster)
        var parent = HistoryRaster()
        parent.add(child: raster, qx: 1, qy: 0)
        #expect(parent.counts[128] == 2 && parent.counts[127 * 256 + 255] == 2 && parent.counts[0] == 0)
    }
}

/// `checkHistory` (`gpslog check`): kept visits and tiles that match their entries pass; a visit row lost and a
/// tile changed behind gpslog's back (by hand, a bug, a restored backup) are found, repaired, and drawn again as a
/// recount draws them.
@Suite(.ownThreads)
struct HistoryCheckTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    @Test func aLostVisitAndAChangedTileAreFoundAndRepaired() throws {
        try withTemporaryStore { store, _ in
            let helper = HistoryTilesTests()
            let s = try store.createSession(name: "Walk", start: start)
            try store.append(makeEntries(count: 800, start: start, step: 50), to: s.id)
            let drawn = try helper.tiles(store)
            var check = try store.checkHistory()
            #expect(check.sessions == 1 && check.sessionsDiffering.isEmpty, "\(check)")
            #expect(check.tiles == (try helper.count(store, "SELECT count(*) FROM HistoryTiles")) && check.tiles > 0)
            #expect(check.tilesDiffering == 0, "\(check)")

            // A kept tile's counts changed: found and dropped (with the tiles above it), the rest left.
            let before = try helper.count(store, "SELECT count(*) FROM HistoryTiles")
            try store.database.run(
                """
                UPDATE HistoryTiles SET Counts = X'000000010000'
                WHERE (Z, X, Y, Scope) = (SELECT Z, X, Y, Scope FROM HistoryTiles WHERE Z = 13 LIMIT 1)
                """
            )
            check = try store.checkHistory()
            #expect(check.tilesDiffering == 1 && check.sessionsDiffering.isEmpty, "\(check)")
            let after = try helper.count(store, "SELECT count(*) FROM HistoryTiles")
            #expect(after < before && after > 0, "\(before) -> \(after)")
            #expect(try helper.tiles(store) == drawn)

            // A visit row lost: the session is counted again and every tile drawn again, as a recount draws them.
            try store.database.run(
                "DELETE FROM HistorySpans WHERE (X, Y) = (SELECT X, Y FROM HistorySpans ORDER BY FirstTime LIMIT 1)")
            check = try store.checkHistory()
            #expect(check.sessionsDiffering.map(\.id) == [s.id], "\(check)")
            #expect(try helper.count(store, "SELECT count(*) FROM HistoryStale") == 1)
            #expect(try helper.count(store, "SELECT count(*) FROM HistoryTiles") == 0)
            #expect(try helper.tiles(store) == drawn)
            check = try store.checkHistory()
            #expect(check.sessionsDiffering.isEmpty && check.tilesDiffering == 0 && check.tiles > 0, "\(check)")
        }
    }

    @Test func aCheckThatOnlyLooksChangesNothing() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Walk", start: start)
            try store.append(makeEntries(count: 300, start: start, step: 50), to: s.id)
            _ = try HistoryTilesTests().tiles(store)
            try store.database.run("DELETE FROM HistorySpans")
            let check = try store.checkHistory(repair: false)
            #expect(check.sessionsDiffering.count == 1 && !check.repaired)
            #expect(try HistoryTilesTests().count(store, "SELECT count(*) FROM HistoryStale") == 0)
        }
    }
}
