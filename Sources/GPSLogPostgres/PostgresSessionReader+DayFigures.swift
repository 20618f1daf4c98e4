// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// The kept per-day figures of `Schema/postgres/005_day_figures.sql`: the days the entries' triggers noted are
/// counted again before a read, a few at a time, each batch in its own transaction.
///
/// Why counted by the reader and not by the writers: every writer (each serve, each sync, any SQL client) notes a
/// day by a trigger for one index row, and a phone's post never waits on a window query. A reader counts only the
/// noted days: the sessions list of a year of data reads a few hundred kept rows, not millions of entries.
extension PostgresSessionReader {
    /// Noted days counted per transaction: a day of 1 Hz is 86,400 points, so one batch stays within a few seconds.
    static let daysPerCount = 16

    /// Counts the noted days again and keeps their figures. A day another reader is counting (its row locked) is left
    /// to it: that reader keeps it; this read may show its old figures.
    /// - Returns: how many days were counted.
    @discardableResult
    public func refreshDayFigures() throws -> Int {
        var counted = 0
        while true {
            let n = try database.transaction(doing: "counting the days of the sessions") { () throws -> Int in
                // The rows stay locked until the commit: a writer noting one of these days meanwhile waits, and
                // notes it again after this transaction removed it.
                let stale = try database.query(
                    """
                    SELECT session_id::text, day FROM day_figures_stale ORDER BY session_id, day
                    LIMIT \(Self.daysPerCount) FOR UPDATE SKIP LOCKED
                    """, doing: "reading the days to count")
                guard !stale.isEmpty else { return 0 }
                var (ids, days) = ("{", "{")
                for row in stale {
                    let (id, day) = try row.decode((String, Int64).self)
                    ids += (ids == "{" ? "" : ",") + id
                    days += (days == "{" ? "" : ",") + String(day)
                }
                var binds = PostgresBindings()
                binds.append(ids + "}")
                binds.append(days + "}")
                try database.execute(
                    """
                    DELETE FROM day_figures d USING unnest($1::uuid[], $2::int8[]) AS w(session_id, day)
                    WHERE d.session_id = w.session_id AND d.day = w.day
                    """, binds, doing: "counting the days of the sessions")
                try database.execute(Self.countDaysSQL, binds, doing: "counting the days of the sessions")
                try database.execute(
                    """
                    DELETE FROM day_figures_stale d USING unnest($1::uuid[], $2::int8[]) AS w(session_id, day)
                    WHERE d.session_id = w.session_id AND d.day = w.day
                    """, binds, doing: "counting the days of the sessions")
                return stale.count
            }
            guard n > 0 else { return counted }
            counted += n
        }
    }

    /// How many days wait to be counted (for tests and `gpslog check`).
    public func staleDayCount() throws -> Int {
        Int(
            try database.query("SELECT count(*)::int8 FROM day_figures_stale", doing: "reading the days to count")
                .first?.decode(Int64.self) ?? 0)
    }

    /// Counts the days `$1`/`$2` (session ids, days) from their entries into `day_figures`: the track points' steps
    /// (the first one's from the last track point before the day), and every entry's counts. A day with no entry
    /// gets no row.
    static let countDaysSQL: String = {
        let r = SessionDay.rules
        let key = PostgresKey.sql("e.id")
        let track = "NOT e.marked AND NOT e.is_heading_changed"
        let inDay = """
            e.session_id = w.session_id AND e.time >= gpslog_time(w.day * 86400000)
            AND e.time < gpslog_time((w.day + 1) * 86400000)
            """
        return """
            WITH want AS (
                SELECT * FROM unnest($1::uuid[], $2::int8[]) AS w(session_id, day)
            ), t AS (
                SELECT w.session_id, w.day, p.before, p.ms, p.lat, p.lon, p.k FROM want w CROSS JOIN LATERAL (
                    (SELECT true AS before, gpslog_ms(e.time) AS ms, e.latitude AS lat, e.longitude AS lon, \(key) AS k
                     FROM entries e
                     WHERE e.session_id = w.session_id AND e.time < gpslog_time(w.day * 86400000) AND \(track)
                     ORDER BY e.time DESC, k DESC LIMIT 1)
                    UNION ALL
                    SELECT false, gpslog_ms(e.time), e.latitude, e.longitude, \(key) FROM entries e
                    WHERE \(inDay) AND \(track)
                ) p
            ), l AS (
                SELECT session_id, day, before, ms, lat, lon, ms - lag(ms) OVER w AS elapsed,
                    lag(lat) OVER w AS plat, lag(lon) OVER w AS plon
                FROM t WINDOW w AS (PARTITION BY session_id, day ORDER BY ms, k)
            ), s AS (
                SELECT session_id, day, ms, lat, lon, elapsed,
                    CASE WHEN plat IS NULL THEN 0 ELSE round(2 * \(Geo.earthRadius) * asin(least(1, sqrt(
                        sin((lat - plat) * (pi() / 180) / 2) ^ 2
                        + cos(plat * (pi() / 180)) * cos(lat * (pi() / 180)) * sin((lon - plon) * (pi() / 180) / 2) ^ 2
                    ))) * 1e9)::int8 END AS len
                FROM l WHERE NOT before
            ), f AS (
                SELECT *, CASE WHEN elapsed > 0 THEN (len / 1e9) / (elapsed / 1000.0) END AS speed,
                    floor((lat + 90) / \(r.cellDegrees))::int8 * \(r.cellColumns)
                        + greatest(0, least(\(r.cellColumns - 1), floor((lon + 180) / \(r.cellDegrees))::int8)) AS cell
                FROM s
            ), tracks AS (
                SELECT session_id, day, count(*)::int8 AS n, sum(len)::int8 AS len, min(ms) AS first, max(ms) AS last,
                    sum(CASE WHEN elapsed > 0 AND elapsed <= \(r.longestMovingStep) AND speed >= \(r.movingSpeed)
                        THEN elapsed ELSE 0 END)::int8 AS moving,
                    coalesce(array_agg(DISTINCT cell ORDER BY cell)
                        FILTER (WHERE speed IS NULL OR speed < \(r.groundSpeed)), '{}') AS cells
                FROM f GROUP BY session_id, day
            ), counts AS (
                SELECT w.session_id, w.day, count(*)::int8 AS entries, (count(*) FILTER (WHERE e.marked))::int8 AS marks,
                    (count(*) FILTER (WHERE e.is_heading_changed))::int8 AS headings,
                    coalesce(sum(e.instance_count) FILTER (WHERE \(track)), 0)::int8 AS fixes,
                    min(e.latitude) FILTER (WHERE NOT e.is_heading_changed) AS south,
                    max(e.latitude) FILTER (WHERE NOT e.is_heading_changed) AS north,
                    min(e.longitude) FILTER (WHERE NOT e.is_heading_changed) AS west,
                    max(e.longitude) FILTER (WHERE NOT e.is_heading_changed) AS east,
                    max(e.speed) FILTER (WHERE NOT e.is_heading_changed AND e.speed <> 'NaN') AS top
                FROM want w JOIN entries e ON \(inDay)
                GROUP BY w.session_id, w.day
            )
            INSERT INTO day_figures (session_id, day, entries, track_points, marks, heading_changes, fixes,
                first_track_ms, last_track_ms, min_latitude, max_latitude, min_longitude, max_longitude, max_speed,
                length_nm, moving_ms, cells)
            SELECT c.session_id, c.day, c.entries, coalesce(t.n, 0), c.marks, c.headings, c.fixes, t.first, t.last,
                c.south, c.north, c.west, c.east, c.top, coalesce(t.len, 0), coalesce(t.moving, 0),
                coalesce(t.cells, '{}')
            FROM counts c LEFT JOIN tracks t ON t.session_id = c.session_id AND t.day = c.day
            """
    }()

    /// The kept figures of every session on each UTC day with track points, in (day, session) order; `first...last`
    /// bound the days (nil: unbounded). The noted days are counted first.
    func sessionDays(from first: Int64?, through last: Int64?) throws -> [SessionDay] {
        try refreshDayFigures()
        var binds = PostgresBindings()
        binds.append(first ?? Int64.min)
        binds.append(last ?? Int64.max)
        let rows = try database.query(
            """
            SELECT session_id::text, day, track_points, length_nm, moving_ms, cells FROM day_figures
            WHERE day BETWEEN $1 AND $2 AND track_points > 0 ORDER BY day, session_id
            """, binds, doing: "reading the days of the sessions")
        return try rows.map { row in
            let (id, day, points, nanometres, moving, cells) = try row.decode(
                (String, Int64, Int64, Int64, Int64, [Int64]).self)
            return SessionDay(
                sessionKey: PostgresKey.key(of: id), day: day, trackPoints: Int(points),
                distance: Double(nanometres) / 1e9, movingSeconds: Double(moving) / 1000,
                groundPlaces: cells.map(SessionDay.centre(ofCell:)))
        }
    }

    /// The summaries of the sessions `where` selects (a clause on the sessions table `s`), summed from their kept
    /// days, keyed by session id; a session with no entries has none.
    func keptSummaries(where clause: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [String:
        KeptSummary]
    {
        try refreshDayFigures()
        let rows = try database.query(
            """
            SELECT d.session_id::text, sum(d.entries)::int8, sum(d.track_points)::int8, sum(d.marks)::int8,
                sum(d.heading_changes)::int8, sum(d.fixes)::int8, min(d.first_track_ms), max(d.last_track_ms),
                min(d.min_latitude), max(d.max_latitude), min(d.min_longitude), max(d.max_longitude),
                max(d.max_speed), sum(d.length_nm)::int8
            FROM day_figures d JOIN sessions s ON s.id = d.session_id WHERE \(clause) GROUP BY d.session_id
            """, binds, doing: "summing up the sessions")
        var sums: [String: KeptSummary] = [:]
        for row in rows {
            let c = row.makeRandomAccess()
            var k = KeptSummary()
            (k.entryCount, k.trackPoints, k.marks) = (
                try c[1].decode(Int.self), try c[2].decode(Int.self), try c[3].decode(Int.self)
            )
            (k.headingChanges, k.fixes) = (try c[4].decode(Int.self), try c[5].decode(Int.self))
            (k.firstTime, k.lastTime) = (try c[6].decode(Int64?.self), try c[7].decode(Int64?.self))
            (k.minLatitude, k.maxLatitude) = (try c[8].decode(Double?.self), try c[9].decode(Double?.self))
            (k.minLongitude, k.maxLongitude) = (try c[10].decode(Double?.self), try c[11].decode(Double?.self))
            (k.maxSpeed, k.lengthNanometres) = (try c[12].decode(Double?.self), try c[13].decode(Int64.self))
            sums[try c[0].decode(String.self)] = k
        }
        return sums
    }
}
