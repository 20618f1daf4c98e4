// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// Counting the history map's visits (`Schema/postgres/007_history_tiles.sql`): the days the entries' triggers
/// noted in `history_stale` are counted again before a tile is drawn, a few at a time, each batch in its own
/// transaction, and the kept tiles their old and new visits touch are dropped.
///
/// Why per day, not per session as the SQLite store counts: a `serve` session is a device's, and may hold years; a
/// phone's post notes one day, and the next tile counts that day's points alone.
extension PostgresSessionReader {
    /// Noted days counted per transaction (a day at 1 Hz is 86,400 points).
    static let historyDaysPerCount = 8

    /// The track points of one session's day, after the last one before the day (the line into the day's first
    /// point): `$1` the session, `$2` the day.
    private static let dayTrackQuery = """
        (SELECT gpslog_ms(time), latitude, longitude FROM entries
         WHERE session_id = $1::uuid AND time < gpslog_time($2 * 86400000) AND NOT marked AND NOT is_heading_changed
         ORDER BY session_id DESC, time DESC, \(key) DESC LIMIT 1)
        UNION ALL
        (SELECT gpslog_ms(time), latitude, longitude FROM entries
         WHERE session_id = $1::uuid AND time >= gpslog_time($2 * 86400000)
         AND time < gpslog_time(($2 + 1) * 86400000) AND NOT marked AND NOT is_heading_changed
         ORDER BY session_id, time, \(key))
        """

    /// Counts the noted days' visits again, keeps them, and drops the kept tiles (every viewer's, at every level)
    /// over their old and new visits. A day another reader is counting (its row locked) is left to it.
    /// - Returns: how many days were counted.
    @discardableResult
    public func refreshHistory() throws -> Int {
        var counted = 0
        while true {
            let n = try database.transaction(doing: "counting the history map's visits") { () throws -> Int in
                // Locked until the commit: a writer noting one of these days waits, and notes it again after.
                let stale = try database.query(
                    """
                    SELECT session_id::text, day FROM history_stale ORDER BY session_id, day
                    LIMIT \(Self.historyDaysPerCount) FOR UPDATE SKIP LOCKED
                    """, doing: "reading the history days to count")
                guard !stale.isEmpty else { return 0 }
                var touched = Set<Int64>()
                for row in stale {
                    let (id, day) = try row.decode((String, Int64).self)
                    touched.formUnion(try recountHistory(session: id, day: day))
                }
                try dropHistoryTiles(over: touched)
                return stale.count
            }
            guard n > 0 else { return counted }
            counted += n
        }
    }

    /// Counts one day's visits into `history_spans` and removes its note; returns the zoom-16 tiles (`pack`ed) of
    /// its old and new visits.
    private func recountHistory(session id: String, day: Int64) throws -> Set<Int64> {
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(day)
        var visits = HistoryVisits()
        for row in try database.query(Self.dayTrackQuery, binds, doing: "reading a day's track for the history map") {
            let (time, latitude, longitude) = try row.decode((Int64, Double, Double).self)
            visits.add(time: time, latitude: latitude, longitude: longitude)
        }
        var touched = Set<Int64>()
        for row in try database.query(
            "SELECT DISTINCT x, y FROM history_spans WHERE session_id = $1::uuid AND day = $2", binds,
            doing: "reading a day's visits")
        {
            let (x, y) = try row.decode((Int32, Int32).self)
            touched.insert(HistoryVisits.pack(Int(x), Int(y)))
        }
        try database.execute(
            "DELETE FROM history_spans WHERE session_id = $1::uuid AND day = $2", binds,
            doing: "counting a day's visits")
        // The day's own points' visits only: the line from the day before's last point starts at that point's time.
        var (xs, ys, firsts, lasts) = ([Int32](), [Int32](), [Int64](), [Int64]())
        for (tile, spans) in visits.spans {
            touched.insert(tile)
            let (x, y) = HistoryVisits.unpack(tile)
            for span in spans {
                xs.append(Int32(x))
                ys.append(Int32(y))
                firsts.append(span.first)
                lasts.append(span.last)
            }
        }
        if !xs.isEmpty {
            var rows = binds
            rows.append(xs)
            rows.append(ys)
            rows.append(firsts)
            rows.append(lasts)
            try database.execute(
                """
                INSERT INTO history_spans (session_id, day, x, y, first_ms, last_ms)
                SELECT $1::uuid, $2, x, y, f, l FROM unnest($3::int4[], $4::int4[], $5::int8[], $6::int8[]) AS u(x, y, f, l)
                """, rows, doing: "keeping a day's visits")
        }
        try database.execute(
            "DELETE FROM history_stale WHERE session_id = $1::uuid AND day = $2", binds,
            doing: "counting a day's visits")
        return touched
    }

    /// Drops the kept tiles over these zoom-16 tiles, at every level and for every viewer. Each tile's lock
    /// (`historyTileLock`) is taken first, in one order: a drawing that read the old visits keeps its tile before
    /// this drops it, and one that starts now reads the new visits.
    private func dropHistoryTiles(over spanTiles: Set<Int64>) throws {
        var tiles = Set<[Int32]>()
        for tile in spanTiles {
            let (x, y) = HistoryVisits.unpack(tile)
            for z in 0...HistoryRaster.keptZoom {
                let d = HistoryRaster.spanZoom - z
                tiles.insert([Int32(z), Int32(x >> d), Int32(y >> d)])
            }
        }
        guard !tiles.isEmpty else { return }
        let sorted = tiles.sorted { ($0[0], $0[1], $0[2]) < ($1[0], $1[1], $1[2]) }
        var binds = PostgresBindings()
        binds.append(sorted.map { Self.historyTileLock(z: Int($0[0]), x: Int($0[1]), y: Int($0[2])).0 })
        binds.append(sorted.map { Self.historyTileLock(z: Int($0[0]), x: Int($0[1]), y: Int($0[2])).1 })
        try database.query(
            "SELECT pg_advisory_xact_lock(a, b) FROM unnest($1::int4[], $2::int4[]) WITH ORDINALITY AS u(a, b, i) ORDER BY i",
            binds, doing: "dropping the history map's tiles")
        var drop = PostgresBindings()
        drop.append(sorted.map { Int16($0[0]) })
        drop.append(sorted.map { $0[1] })
        drop.append(sorted.map { $0[2] })
        try database.execute(
            """
            DELETE FROM history_tiles t USING unnest($1::int2[], $2::int4[], $3::int4[]) AS d(z, x, y)
            WHERE t.z = d.z AND t.x = d.x AND t.y = d.y
            """, drop, doing: "dropping the history map's tiles")
    }

    /// The transaction-level advisory lock of kept tile `z/x/y` (zoom at most 13): a class of gpslog's own in the
    /// first key (two-key locks never meet the one-key lock the schema's migrations take), the tile in the second.
    static func historyTileLock(z: Int, x: Int, y: Int) -> (Int32, Int32) {
        (Int32(0x4750_0000 | z), Int32(x << 13 | y))
    }
}
