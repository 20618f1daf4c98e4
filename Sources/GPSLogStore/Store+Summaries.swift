// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// Counts, extent and speed of a session, computed by SQLite.
    ///
    /// The track is the location rows (not marks, not heading changes); its length is the sum of great-circle
    /// steps between consecutive track points in time order (`trackLength`).
    public func summary(of session: Session) throws -> SessionSummary {
        return try sqlite {
            var summary = SessionSummary(session: session)
            let s = try database.cachedStatement(
                """
                SELECT COUNT(*),
                       TOTAL(Marked = 0 AND IsHeadingChanged = 0),
                       TOTAL(Marked),
                       TOTAL(IsHeadingChanged),
                       TOTAL(CASE WHEN Marked = 0 AND IsHeadingChanged = 0 THEN InstanceCount END),
                       MIN(CASE WHEN Marked = 0 AND IsHeadingChanged = 0 THEN TimeStamp END),
                       MAX(CASE WHEN Marked = 0 AND IsHeadingChanged = 0 THEN TimeStamp END),
                       MIN(CASE WHEN IsHeadingChanged = 0 THEN Latitude END),
                       MAX(CASE WHEN IsHeadingChanged = 0 THEN Latitude END),
                       MIN(CASE WHEN IsHeadingChanged = 0 THEN Longitude END),
                       MAX(CASE WHEN IsHeadingChanged = 0 THEN Longitude END),
                       MAX(CASE WHEN IsHeadingChanged = 0 THEN Speed END)
                FROM Entries WHERE Session = ?
                """)
            defer { s.reset() }
            try s.bind(session.id, at: 1)
            if try s.step() {
                summary.entryCount = s.int(at: 0) ?? 0
                summary.trackPointCount = Int(s.double(at: 1) ?? 0)
                summary.markCount = Int(s.double(at: 2) ?? 0)
                summary.headingChangeCount = Int(s.double(at: 3) ?? 0)
                summary.fixCount = Int(s.double(at: 4) ?? 0)
                summary.firstTime = s.int64(at: 5).map { Timestamp(milliseconds: $0) }
                summary.lastTime = s.int64(at: 6).map { Timestamp(milliseconds: $0) }
                summary.minLatitude = s.double(at: 7)
                summary.maxLatitude = s.double(at: 8)
                summary.minLongitude = s.double(at: 9)
                summary.maxLongitude = s.double(at: 10)
                summary.maxSpeed = s.double(at: 11)
            }
            s.reset()
            summary.distance = try trackLength(sessionID: session.id)
            summary.droppedFixes = try droppedFixes(of: session.id)
            return summary
        }
    }

    /// How many rows a session has (from the (Session, TimeStamp) index alone: cheap, for progress bars).
    public func entryCount(of sessionID: String) throws -> Int {
        return try sqlite {
            Int(try database.scalar("SELECT COUNT(*) FROM Entries WHERE Session = ?", [.text(sessionID)])?.int64 ?? 0)
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
                SELECT Latitude, Longitude FROM Entries
                WHERE Session = ? AND Marked = 0 AND IsHeadingChanged = 0
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

    /// Summaries of every session, oldest first.
    public func summaries() throws -> [SessionSummary] {
        return try sqlite {
            try sessions().map { try summary(of: $0) }
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
                SELECT \(Store.entryColumns) FROM Entries
                WHERE Session = ?1 AND Marked = 1 AND TimeStamp >= ?2 AND TimeStamp <= ?3
                ORDER BY TimeStamp, Key
                """)
            try statement.bind(sessionID, at: 1)
            try statement.bind(from?.milliseconds ?? Int64.min, at: 2)
            try statement.bind(to?.milliseconds ?? Int64.max, at: 3)
            return EntryCursor(statement: statement, store: self)
        }
    }
}
