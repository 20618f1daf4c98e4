// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import PostgresNIO

/// How gpslog's rows are written into PostgreSQL: the INSERTs of entries, the session upsert, the track.
enum PostgresRows {
    /// Rows per INSERT: a sync batch in one statement (see `PostgresEntryArrays`).
    static let rowsPerInsert = 5000

    /// Inserts `entries` into session `sessionID` (in statements of `rowsPerInsert`), inside the caller's transaction.
    /// - Returns: how many were new (the rest were there already).
    static func insert(_ entries: [Entry], session sessionID: String, received: Bool, into db: PostgresDatabase)
        throws -> Int
    {
        var inserted = 0
        try forEachStatement(entries, session: sessionID, received: received) { sql, binds in
            inserted += try db.execute(sql, binds, doing: "storing entries")
        }
        return inserted
    }

    /// Inserts received entries, and says which were new: how many, and the times of the new track points (where
    /// the session's track has to change).
    static func insertReturningTrackTimes(_ entries: [Entry], session sessionID: String, into db: PostgresDatabase)
        throws -> (count: Int, trackTimes: [Timestamp])
    {
        var count = 0
        var times: [Timestamp] = []
        try forEachStatement(entries, session: sessionID, received: true) { sql, binds in
            let rows = try db.query(
                sql + " RETURNING CASE WHEN \(trackPoint) THEN gpslog_ms(time) END", binds, doing: "storing entries")
            count += rows.count
            for row in rows {
                if let ms = try row.decode(Int64?.self) { times.append(Timestamp(milliseconds: ms)) }
            }
        }
        return (count, times)
    }

    private static func forEachStatement(
        _ entries: [Entry], session sessionID: String, received: Bool,
        _ body: (String, PostgresBindings) throws -> Void
    ) throws {
        var start = entries.startIndex
        while start < entries.endIndex {
            let end = min(start + rowsPerInsert, entries.endIndex)
            let arrays = PostgresEntryArrays(entries[start..<end])
            try body(PostgresEntryArrays.insertSQL, arrays.bindings(session: sessionID, received: received))
            start = end
        }
    }

    /// Text PostgreSQL takes: it refuses NUL characters, which SQLite keeps; they become U+FFFD.
    static func text(_ s: String?) -> String? {
        guard let s, s.utf8.contains(0) else { return s }
        return s.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
    }

    // MARK: - Sessions

    /// Inserts or updates a session row; an unchanged row is left alone.
    /// - Returns: whether the row was new or changed, new, and whether its track waits for a rebuild.
    static func upsert(_ s: Session, origin: String, into db: PostgresDatabase) throws -> (
        changed: Bool, inserted: Bool, trackOutdated: Bool
    ) {
        var b = PostgresBindings()
        b.append(s.id)
        b.append(s.name)
        b.append(s.start.milliseconds)
        b.append(s.end?.milliseconds)
        b.append(s.mode?.rawValue)
        b.append(s.isTrip)
        b.append(origin)
        let rows = try db.query(
            """
            WITH up AS (
                INSERT INTO sessions (id, name, start_time, end_time, mode, is_trip, origin)
                VALUES ($1::uuid, $2, gpslog_time($3), gpslog_time($4), $5, $6, $7)
                ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, start_time = EXCLUDED.start_time,
                    end_time = EXCLUDED.end_time, mode = EXCLUDED.mode, is_trip = EXCLUDED.is_trip, updated_at = now()
                WHERE (sessions.name, sessions.start_time, sessions.end_time, sessions.mode, sessions.is_trip)
                    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.start_time, EXCLUDED.end_time, EXCLUDED.mode,
                    EXCLUDED.is_trip)
                RETURNING xmax = 0 AS inserted, track_outdated)
            SELECT true, inserted, track_outdated FROM up
            UNION ALL SELECT false, false, track_outdated FROM sessions
                WHERE id = $1::uuid AND NOT EXISTS (SELECT 1 FROM up)
            """, b, doing: "storing the session '\(s.name)'")
        guard let row = rows.first else { return (false, false, false) }
        let (changed, inserted, outdated) = try row.decode((Bool, Bool, Bool).self)
        return (changed, inserted, outdated)
    }

    // MARK: - The track

    /// Marks the track as behind its entries (inside a sync batch's transaction): a sync killed before its rebuild
    /// leaves this for the next one to see.
    static func markTrackOutdated(_ sessionID: String, in db: PostgresDatabase) throws {
        var b = PostgresBindings()
        b.append(sessionID)
        try db.execute(
            "UPDATE sessions SET track_outdated = true WHERE id = $1::uuid AND NOT track_outdated", b,
            doing: "marking the track for a rebuild")
    }

    /// The track point filter (not marks, not heading changes), as the SQLite store's.
    static let trackPoint = "NOT marked AND NOT is_heading_changed"

    /// Rebuilds a session's track from its entries: a LineString of its track points in time order (NULL under two).
    static func rebuildTrack(_ sessionID: String, in db: PostgresDatabase) throws {
        var b = PostgresBindings()
        b.append(sessionID)
        try db.execute(
            """
            UPDATE sessions s SET track = t.line, point_count = t.n, track_end = t.last, track_outdated = false,
                updated_at = now()
            FROM (SELECT CASE WHEN count(*) >= 2 THEN ST_MakeLine(geom ORDER BY time, id) END AS line,
                    count(*) AS n, max(time) AS last
                FROM entries WHERE session_id = $1::uuid AND \(trackPoint)) t
            WHERE s.id = $1::uuid
            """, b, doing: "drawing the session's track")
    }

    /// Brings a session's track up to date after a write whose new track points are all later than the track's end:
    /// they are appended (the entries are not read again). Points at or before the end rebuild it. Through an array of
    /// the track and the points: `ST_MakeLine(line, line)` would merge a repeated point where the two meet (a phone at
    /// rest), the array form keeps every point.
    static func extendTrack(_ sessionID: String, earliestNew: Timestamp, in db: PostgresDatabase) throws {
        var b = PostgresBindings()
        b.append(sessionID)
        b.append(earliestNew.milliseconds)
        let appended = try db.execute(
            """
            UPDATE sessions s SET track = ST_MakeLine(ARRAY[s.track] || t.points),
                point_count = s.point_count + t.n, track_end = t.last, updated_at = now()
            FROM (SELECT array_agg(e.geom ORDER BY e.time, e.id) AS points, count(*) AS n, max(e.time) AS last
                FROM entries e, sessions o
                WHERE o.id = $1::uuid AND e.session_id = o.id AND e.time > o.track_end AND \(trackPoint)) t
            WHERE s.id = $1::uuid AND s.track IS NOT NULL AND s.track_end < gpslog_time($2) AND t.n > 0
            """, b, doing: "extending the session's track")
        if appended == 0 { try rebuildTrack(sessionID, in: db) }
    }
}
