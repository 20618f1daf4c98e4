// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// Statistics over PostgreSQL: the per-day figures counted by one query of PostgreSQL's, with the SQLite store's
/// rules (`SessionDay.rules`), then summed up as the SQLite store sums its kept ones.
///
/// Why a query and not kept figures: nothing else in PostgreSQL is kept per day, several serve processes would have to
/// agree on each update, and one scan of the entries in the (session, time) index is a few seconds for millions of
/// points. The SQLite store keeps its figures because the recorder's Pi must answer in milliseconds.
extension PostgresSessionReader {
    /// The figures of every session on each UTC day, in (day, session) order; `first...last` bound the days
    /// (nil: unbounded). A step that ends on a day counts there, also when it began the day before.
    func sessionDays(from first: Int64?, through last: Int64?) throws -> [SessionDay] {
        let r = SessionDay.rules
        var binds = PostgresBindings()
        binds.append(first ?? Int64.min)
        binds.append(last ?? Int64.max)
        let rows = try database.query(
            """
            WITH t AS (
                SELECT session_id, gpslog_ms(time) AS ms, latitude AS lat, longitude AS lon,
                    lag(gpslog_ms(time)) OVER w AS pms, lag(latitude) OVER w AS plat, lag(longitude) OVER w AS plon
                FROM entries WHERE NOT marked AND NOT is_heading_changed
                WINDOW w AS (PARTITION BY session_id ORDER BY time, \(Self.key))
            ), s AS (
                SELECT session_id, floor(ms / 86400000.0)::int8 AS day, lat, lon, ms - pms AS elapsed,
                    CASE WHEN plat IS NULL THEN 0 ELSE round(2 * \(Geo.earthRadius) * asin(least(1, sqrt(
                        sin((lat - plat) * (pi() / 180) / 2) ^ 2
                        + cos(plat * (pi() / 180)) * cos(lat * (pi() / 180)) * sin((lon - plon) * (pi() / 180) / 2) ^ 2
                    ))) * 1e9)::int8 END AS len
                FROM t
            ), f AS (
                SELECT *, CASE WHEN elapsed > 0 THEN (len / 1e9) / (elapsed / 1000.0) END AS speed,
                    floor((lat + 90) / \(r.cellDegrees))::int8 * \(r.cellColumns)
                        + greatest(0, least(\(r.cellColumns - 1), floor((lon + 180) / \(r.cellDegrees))::int8)) AS cell
                FROM s WHERE day BETWEEN $1 AND $2
            )
            SELECT session_id::text, day, count(*)::int8, sum(len)::int8,
                sum(CASE WHEN elapsed > 0 AND elapsed <= \(r.longestMovingStep) AND speed >= \(r.movingSpeed)
                    THEN elapsed ELSE 0 END)::int8,
                coalesce(array_agg(DISTINCT cell) FILTER (WHERE speed IS NULL OR speed < \(r.groundSpeed)), '{}')
            FROM f GROUP BY session_id, day ORDER BY day, session_id
            """, binds, doing: "counting the days of the sessions")
        return try rows.map { row in
            let (id, day, points, nanometres, moving, cells) = try row.decode(
                (String, Int64, Int64, Int64, Int64, [Int64]).self)
            return SessionDay(
                sessionKey: PostgresKey.key(of: id), day: day, trackPoints: Int(points),
                distance: Double(nanometres) / 1e9, movingSeconds: Double(moving) / 1000,
                groundPlaces: cells.sorted().map(SessionDay.centre(ofCell:)))
        }
    }

    /// The statistics of the sessions `include` accepts, in `year` (UTC; nil: every year), as the SQLite store
    /// makes them from its kept figures: distance and time moving, countries and towns from `locate`, visits.
    public func statistics(year: Int?, including include: (Session) -> Bool, locate: Statistics.Locate?) throws
        -> Statistics
    {
        let first = year.map { CivilDay.day(year: Int64($0), month: 1, day: 1) }
        let last = year.map { CivilDay.day(year: Int64($0) + 1, month: 1, day: 1) - 1 }
        var sessions: [Int64: Session] = [:]
        for session in try self.sessions() where include(session) { sessions[session.key] = session }
        let days = try sessionDays(from: first, through: last).filter { sessions[$0.sessionKey] != nil }
        let visits = try Statistics.visits(of: sessions, from: first, through: last) { try self.visits(of: $0) }
        return Statistics(days: days, sessions: sessions, visits: visits, locate: locate)
    }
}
