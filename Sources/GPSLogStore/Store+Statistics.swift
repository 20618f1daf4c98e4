// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// One session's kept figures on one UTC day (a DaySummaries row and its DayCells).
public struct SessionDay: Sendable, Equatable {
    /// The session's key (`Session.key`).
    public var sessionKey: Int64
    /// Whole UTC days since 1970-01-01.
    public var day: Int64
    /// Track points on the day.
    public var trackPoints: Int
    /// Metres: the steps ending on this day.
    public var distance: Double
    /// Seconds of steps that moved (0.7 m/s or more, 5 minutes at most each).
    public var movingSeconds: Double
    /// Where the track was on the ground (under 300 km/h): the centres of 0.02-degree cells.
    public var groundPlaces: [(latitude: Double, longitude: Double)]

    /// Figures from their parts (a store that counts them itself: PostgreSQL's).
    public init(
        sessionKey: Int64, day: Int64, trackPoints: Int, distance: Double, movingSeconds: Double,
        groundPlaces: [(latitude: Double, longitude: Double)]
    ) {
        self.sessionKey = sessionKey
        self.day = day
        self.trackPoints = trackPoints
        self.distance = distance
        self.movingSeconds = movingSeconds
        self.groundPlaces = groundPlaces
    }

    /// The rules a day's figures are counted by, for a store that counts them in its own query: a step at
    /// `movingSpeed` m/s or more and at most `longestMovingStep` ms long is time moving; a point reached under
    /// `groundSpeed` m/s was on the ground, in the cell of `cellDegrees` degrees (`cellColumns` to a row) holding it.
    public static let rules = (
        movingSpeed: DayFigures.movingSpeed, longestMovingStep: DayFigures.longestMovingStep,
        groundSpeed: DayFigures.groundSpeed, cellDegrees: DayFigures.cellDegrees, cellColumns: DayFigures.cellColumns
    )

    /// The centre of a ground cell (a number of `rules`' grid).
    public static func centre(ofCell cell: Int64) -> (latitude: Double, longitude: Double) {
        DayFigures.centre(ofCell: cell)
    }

    /// Equal figures (the ground places by their number).
    public static func == (a: SessionDay, b: SessionDay) -> Bool {
        a.sessionKey == b.sessionKey && a.day == b.day && a.trackPoints == b.trackPoints && a.distance == b.distance
            && a.movingSeconds == b.movingSeconds && a.groundPlaces.count == b.groundPlaces.count
    }
}

extension Store {
    /// The kept per-day figures of every session on the days `first...last` (nil: unbounded), in (day, session)
    /// order. Sessions whose figures are not known (an upgrade, a failed write) are counted first, once.
    public func sessionDays(from first: Int64? = nil, through last: Int64? = nil) throws -> [SessionDay] {
        try sqlite {
            let unknown = try database.makeStatement(
                "SELECT Key FROM Sessions WHERE Key NOT IN (SELECT Session FROM SessionSummaries)")
            var keys: [Int64] = []
            while try unknown.step() { keys.append(unknown.requiredInt64(at: 0)) }
            if !keys.isEmpty {
                for session in try sessions() where keys.contains(session.key) { _ = try summaryFigures(of: session) }
            }
            let range: [SQLiteValue] = [.integer(first ?? .min), .integer(last ?? .max)]
            var cells: [Int64: [Int64: [(latitude: Double, longitude: Double)]]] = [:]
            let c = try database.makeStatement("SELECT Session, Day, Cell FROM DayCells WHERE Day BETWEEN ?1 AND ?2")
            try c.bind(range)
            while try c.step() {
                cells[c.requiredInt64(at: 0), default: [:]][c.requiredInt64(at: 1), default: []].append(
                    DayFigures.centre(ofCell: c.requiredInt64(at: 2)))
            }
            let s = try database.makeStatement(
                """
                SELECT Session, Day, TrackPoints, LengthNanometres, MovingMilliseconds FROM DaySummaries
                WHERE Day BETWEEN ?1 AND ?2 ORDER BY Day, Session
                """)
            try s.bind(range)
            var days: [SessionDay] = []
            while try s.step() {
                let (key, day) = (s.requiredInt64(at: 0), s.requiredInt64(at: 1))
                days.append(
                    SessionDay(
                        sessionKey: key, day: day, trackPoints: Int(s.requiredInt64(at: 2)),
                        distance: Double(s.requiredInt64(at: 3)) / 1e9,
                        movingSeconds: Double(s.requiredInt64(at: 4)) / 1000,
                        groundPlaces: cells[key]?[day] ?? []))
            }
            return days
        }
    }
}

extension Store {
    /// The statistics of the sessions `include` accepts, in `year` (UTC; nil: every year): the kept per-day figures
    /// and the visits that began in the period, countries and towns from `locate`.
    public func statistics(
        year: Int? = nil, including include: (Session) -> Bool = { _ in true }, locate: Statistics.Locate?
    ) throws -> Statistics {
        let first = year.map { CivilDay.day(year: Int64($0), month: 1, day: 1) }
        let last = year.map { CivilDay.day(year: Int64($0) + 1, month: 1, day: 1) - 1 }
        let days = try sessionDays(from: first, through: last)
        var sessions: [Int64: Session] = [:]
        for session in try self.sessions() where include(session) { sessions[session.key] = session }
        let visits = try Statistics.visits(of: sessions, from: first, through: last) { try self.visits(of: $0) }
        return Statistics(days: days, sessions: sessions, visits: visits, locate: locate)
    }
}

extension Statistics {
    /// The visits of `sessions` that began on the UTC days `first...last` (nil: unbounded), by arrival, each with
    /// its session's key; `read` gives a session's visits by its id (each store its own).
    public static func visits(
        of sessions: [Int64: Session], from first: Int64?, through last: Int64?, _ read: (String) throws -> [Visit]
    ) rethrows -> [(sessionKey: Int64, visit: Visit)] {
        var visits: [(sessionKey: Int64, visit: Visit)] = []
        for session in sessions.values {
            for visit in try read(session.id) {
                let day = CivilDay.day(ofMilliseconds: visit.arrival.milliseconds)
                if day >= first ?? .min && day <= last ?? .max { visits.append((session.key, visit)) }
            }
        }
        visits.sort { ($0.visit.arrival, $0.sessionKey) < ($1.visit.arrival, $1.sessionKey) }
        return visits
    }
}
