// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// Statistics over PostgreSQL: the kept per-day figures (`PostgresSessionReader+DayFigures.swift`, counted with the
/// SQLite store's rules, `SessionDay.rules`), summed up as the SQLite store sums its own.
extension PostgresSessionReader {
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
