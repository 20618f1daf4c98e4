// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// Counts, extent, length and speed of a session, from its kept figures (SessionSummaries, one row; see
    /// `Store+KeptSummaries.swift`): as fast for a session of 30M entries as for one of 3.
    ///
    /// The track is the location rows (not marks, not heading changes); its length is the sum of great-circle
    /// steps between consecutive track points in time order, each rounded to the nanometre.
    public func summary(of session: Session) throws -> SessionSummary {
        return try sqlite {
            var summary = SessionSummary(session: session)
            try summaryFigures(of: session).apply(to: &summary)
            summary.droppedFixes = try droppedFixes(of: session.id)
            return summary
        }
    }

    /// How many rows a session has (kept: cheap, for progress bars).
    public func entryCount(of sessionID: String) throws -> Int {
        return try sqlite {
            guard let session = try session(id: sessionID) else { return 0 }
            return try summaryFigures(of: session).entryCount
        }
    }

    /// Length in metres of a session's track: the great-circle steps between consecutive track points in time
    /// order, summed in order.
    ///
    /// Why a loop here and not SQL: a window query calling a Swift SQL function per row took 2 s for a 1M-entry
    /// session (`sessions` lists every session's length); reading the rows in the (Session, TimeStamp) index's
    /// order, which needs no sort, and adding in Swift takes a fraction of that, with the same sum.
    public func trackLength(sessionID: String) throws -> Double {
        return try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT Latitude, Longitude FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?) AND Marked = 0 AND IsHeadingChanged = 0
                ORDER BY TimeStamp, Key
                """)
            defer { s.reset() }
            try s.bind(sessionID, at: 1)
            guard try s.step(), var lat = s.double(at: 0), var lon = s.double(at: 1) else { return 0 }
            var total = 0.0
            while try s.step() {
                guard let nextLat = s.double(at: 0), let nextLon = s.double(at: 1) else { continue }
                total += Geo.distance(lat1: lat, lon1: lon, lat2: nextLat, lon2: nextLon)
                (lat, lon) = (nextLat, nextLon)
            }
            return total
        }
    }

    /// Summaries of every session, oldest first: one query over the sessions and their kept figures.
    public func summaries() throws -> [SessionSummary] {
        return try sqlite {
            let columns = Store.sessionColumns.split(separator: ", ").map { "s." + $0 }.joined(separator: ", ")
            let s = try database.cachedStatement(
                """
                SELECT \(columns), s.DroppedPosition, s.DroppedTime, s.DroppedSpeed, \(Store.summaryColumns)
                FROM Sessions s LEFT JOIN SessionSummaries k ON k.Session = s.Key
                ORDER BY s.StartTime, s.Key
                """)
            defer { s.reset() }
            var rows: [(SessionSummary, KeptSummary?)] = []
            while try s.step() {
                var summary = SessionSummary(session: Store.readSession(s))
                if let position = s.int(at: 8), let time = s.int(at: 9), let speed = s.int(at: 10) {
                    summary.droppedFixes = DroppedFixes(position: position, time: time, speed: speed)
                }
                rows.append((summary, Store.readKeptSummary(s, offset: 11)))
            }
            s.reset()
            return try rows.map { summary, kept in
                var summary = summary
                try (kept ?? summaryFigures(of: summary.session)).apply(to: &summary)
                return summary
            }
        }
    }

    /// A cursor over a session's marks in time order (ties in insertion order), within the range, one row at a
    /// time: a session of a million marks exports in flat memory (through the marks' own index, so the track's rows
    /// are not walked).
    public func marks(of sessionID: String, from: Timestamp? = nil, to: Timestamp? = nil) throws -> EntryCursor {
        return try sqlite {
            // A fresh statement, not the cache: the track's cursor may be open at the same time.
            let statement = try database.makeStatement(
                """
                SELECT \(Store.entryColumns) FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND Marked = 1 AND TimeStamp >= ?2
                    AND TimeStamp <= ?3
                ORDER BY TimeStamp, Key
                """)
            try statement.bind(sessionID, at: 1)
            try statement.bind(from?.milliseconds ?? Int64.min, at: 2)
            try statement.bind(to?.milliseconds ?? Int64.max, at: 3)
            return EntryCursor(statement: statement, store: self)
        }
    }
}
