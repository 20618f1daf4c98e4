// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// One page of track points of every session, newest or oldest first (`serve`'s Dawarich-compatible
/// `GET /api/v1/points`).
public struct PointPage: Sendable {
    /// The page's points, each with the name of its session.
    public var points: [(session: String, entry: Entry)]
    /// How many points the whole range holds (for the page count).
    public var total: Int
}

/// What gpslog can say of all its tracks at once (`GET /api/v1/stats`).
public struct PointTotals: Sendable, Equatable {
    /// Track points of every session.
    public var points = 0
    /// Track points with a reverse-geocoded address.
    public var geocoded = 0
    /// Metres of track, by the year each session started in.
    public var metresByYear: [Int: Double] = [:]
    /// Metres of track, by year and month (1...12) of each session's start.
    public var metresByMonth: [Int: [Int: Double]] = [:]

    /// Creates empty totals.
    public init() {}
}

extension Store {
    /// The largest page `pointPage` reads: a page is held in memory whole.
    public static let largestPointPage = 1000

    /// The track points (not marks, not heading changes) of every session whose time lies in `from...to`, one page:
    /// page `page` (from 1) of `perPage` (at most `largestPointPage`) points. Only the page is read into memory.
    public func pointPage(from: Timestamp?, to: Timestamp?, newestFirst: Bool, page: Int, perPage: Int) throws
        -> PointPage
    {
        let perPage = max(1, min(perPage, Store.largestPointPage))
        let offset = Int64(max(0, page - 1)) * Int64(perPage)
        let range: [SQLiteValue] = [
            from.map { .integer($0.milliseconds) } ?? .null, to.map { .integer($0.milliseconds) } ?? .null,
        ]
        let within = """
            Marked = 0 AND IsHeadingChanged = 0 AND (?1 IS NULL OR TimeStamp >= ?1) AND (?2 IS NULL OR TimeStamp <= ?2)
            """
        return try sqlite {
            let total = try database.scalar("SELECT COUNT(*) FROM EntryRows WHERE \(within)", range)?.int64 ?? 0
            let order = newestFirst ? "DESC" : "ASC"
            let s = try database.makeStatement(
                """
                SELECT \(Store.entryColumns), (SELECT Name FROM Sessions WHERE Sessions.Key = EntryRows.SessionKey)
                FROM EntryRows WHERE \(within)
                ORDER BY TimeStamp \(order), Key \(order) LIMIT ?3 OFFSET ?4
                """)
            try s.bind(range + [.integer(Int64(perPage)), .integer(offset)])
            var points: [(session: String, entry: Entry)] = []
            while try s.step() { points.append((s.string(at: 21) ?? "", Store.readEntry(s))) }
            return PointPage(points: points, total: Int(total))
        }
    }

    /// Counts of all track points, and track lengths by the year and month each session started in, from the kept
    /// summaries (no track is read again).
    public func pointTotals() throws -> PointTotals {
        var totals = PointTotals()
        for summary in try summaries() {
            totals.points += summary.trackPointCount
            let c = summary.session.start.components
            totals.metresByYear[c.year, default: 0] += summary.distance
            totals.metresByMonth[c.year, default: [:]][c.month, default: 0] += summary.distance
        }
        totals.geocoded = try sqlite {
            Int(
                try database.scalar(
                    "SELECT COUNT(*) FROM EntryRows WHERE Marked = 0 AND IsHeadingChanged = 0 AND Address IS NOT NULL"
                )?.int64 ?? 0)
        }
        return totals
    }
}
