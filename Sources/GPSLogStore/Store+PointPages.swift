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

    /// The sessions of the user named `owner` (`Sessions.Owner`), as an SQL condition on `SessionKey` with the
    /// name as `?N`.
    static func ownedBy(_ n: Int) -> String {
        "SessionKey IN (SELECT s.Key FROM Sessions s JOIN Users u ON u.Key = s.Owner WHERE u.Name = ?\(n))"
    }

    /// The track points (not marks, not heading changes) of every session whose time lies in `from...to`, one page:
    /// page `page` (from 1) of `perPage` (at most `largestPointPage`) points. Only the page is read into memory.
    /// `owner`: only the sessions of the user of that name (a device token's reads); nil: every session.
    public func pointPage(
        from: Timestamp?, to: Timestamp?, newestFirst: Bool, page: Int, perPage: Int, owner: String? = nil
    ) throws -> PointPage {
        let perPage = max(1, min(perPage, Store.largestPointPage))
        let offset = Int64(max(0, page - 1)) * Int64(perPage)
        let range: [SQLiteValue] = [
            from.map { .integer($0.milliseconds) } ?? .null, to.map { .integer($0.milliseconds) } ?? .null,
            owner.map { .text($0) } ?? .null,
        ]
        let within = """
            Marked = 0 AND IsHeadingChanged = 0 AND (?1 IS NULL OR TimeStamp >= ?1) AND (?2 IS NULL OR TimeStamp <= ?2)
                AND (?3 IS NULL OR \(Store.ownedBy(3)))
            """
        return try sqlite {
            let total = try database.scalar("SELECT COUNT(*) FROM EntryRows WHERE \(within)", range)?.int64 ?? 0
            let order = newestFirst ? "DESC" : "ASC"
            let s = try database.makeStatement(
                """
                SELECT \(Store.entryColumns), (SELECT Name FROM Sessions WHERE Sessions.Key = EntryRows.SessionKey)
                FROM EntryRows WHERE \(within)
                ORDER BY TimeStamp \(order), Key \(order) LIMIT ?4 OFFSET ?5
                """)
            try s.bind(range + [.integer(Int64(perPage)), .integer(offset)])
            var points: [(session: String, entry: Entry)] = []
            while try s.step() { points.append((s.string(at: 21) ?? "", Store.readEntry(s))) }
            return PointPage(points: points, total: Int(total))
        }
    }

    /// Counts of all track points, and track lengths by the year and month each session started in, from the kept
    /// summaries (no track is read again). `owner`: only the sessions of the user of that name.
    public func pointTotals(owner: String? = nil) throws -> PointTotals {
        var totals = PointTotals()
        let owned: Set<Int64>? =
            try owner.map { name in
                try sqlite {
                    let s = try database.makeStatement(
                        "SELECT s.Key FROM Sessions s JOIN Users u ON u.Key = s.Owner WHERE u.Name = ?")
                    try s.bind(name, at: 1)
                    var keys = Set<Int64>()
                    while try s.step() { keys.insert(s.requiredInt64(at: 0)) }
                    return keys
                }
            }
        for summary in try summaries() where owned?.contains(summary.session.key) ?? true {
            totals.points += summary.trackPointCount
            let c = summary.session.start.components
            totals.metresByYear[c.year, default: 0] += summary.distance
            totals.metresByMonth[c.year, default: [:]][c.month, default: 0] += summary.distance
        }
        totals.geocoded = try sqlite {
            Int(
                try database.scalar(
                    """
                    SELECT COUNT(*) FROM EntryRows WHERE Marked = 0 AND IsHeadingChanged = 0 AND Address IS NOT NULL
                        AND (?1 IS NULL OR \(Store.ownedBy(1)))
                    """, [owner.map { .text($0) } ?? .null])?.int64 ?? 0)
        }
        return totals
    }
}
