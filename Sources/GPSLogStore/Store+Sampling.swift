// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// A session's track points spread evenly in time, for a chart of a long span: the first track point at or
    /// after the start of each of `count` equal slices of `from`...`to`, each found by one seek in the (Session,
    /// TimeStamp) index, so the cost is `count` seeks however many rows the span holds (a scan of a million rows
    /// is a second; five thousand seeks are a few hundredths of one). A slice holding no point gives the next point after
    /// it, kept once. Use it when the span holds several times `count` points; with fewer, read them all.
    public func sampledTrackPoints(of sessionID: String, from: Timestamp, to: Timestamp, count: Int) throws
        -> [Entry]
    {
        try sqlite {
            guard let sessionKey = try sessionKey(of: sessionID) else { return [] }
            let statement = try database.makeStatement(
                """
                SELECT \(Store.entryColumns) FROM EntryRows
                WHERE SessionKey = ?1 AND TimeStamp >= ?2 AND TimeStamp <= ?3 AND Marked = 0 AND IsHeadingChanged = 0
                ORDER BY TimeStamp, Key LIMIT 1
                """)
            let span = Double(max(0, to.milliseconds - from.milliseconds))
            let slices = max(1, count)
            var points: [Entry] = []
            points.reserveCapacity(slices)
            var next = from.milliseconds
            for i in 0..<slices {
                let start = from.milliseconds + Int64((span * Double(i) / Double(slices)).rounded(.down))
                // An earlier seek found its point past this slice's start (a gap): its points are taken.
                guard start >= next else { continue }
                guard start <= to.milliseconds else { break }
                statement.reset()  // which clears the bindings too
                try statement.bind(sessionKey, at: 1)
                try statement.bind(start, at: 2)
                try statement.bind(to.milliseconds, at: 3)
                guard try statement.step() else { break }
                let e = Store.readEntry(statement)
                points.append(e)
                // The next slice starts after this point: a point is never taken twice.
                next = e.time.milliseconds + 1
            }
            statement.reset()
            return points
        }
    }

    /// How many rows (track points, marks, heading changes) a session has in a time span, counted in the index.
    public func entryCount(of sessionID: String, from: Timestamp?, to: Timestamp?) throws -> Int {
        try sqlite {
            Int(
                try database.scalar(
                    """
                    SELECT count(*) FROM EntryRows
                    WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND TimeStamp >= ?2 AND TimeStamp <= ?3
                    """,
                    [
                        .text(sessionID), .integer(from?.milliseconds ?? Int64.min),
                        .integer(to?.milliseconds ?? Int64.max),
                    ])?.int64 ?? 0)
        }
    }

    /// A session's heading-change rows in a time span, in time order, streamed.
    public func headingChanges(of sessionID: String, from: Timestamp?, to: Timestamp?) throws -> EntryCursor {
        try sqlite {
            let statement = try database.makeStatement(
                """
                SELECT \(Store.entryColumns) FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND TimeStamp >= ?2 AND TimeStamp <= ?3
                    AND IsHeadingChanged = 1
                ORDER BY TimeStamp, Key
                """)
            try statement.bind(sessionID, at: 1)
            try statement.bind(from?.milliseconds ?? Int64.min, at: 2)
            try statement.bind(to?.milliseconds ?? Int64.max, at: 3)
            return EntryCursor(statement: statement, store: self, read: { Store.readEntry($0) })
        }
    }

    /// A session's last track point (its newest by time), if any.
    public func lastTrackPoint(of sessionID: String) throws -> Entry? {
        try sqlite {
            let statement = try database.makeStatement(
                """
                SELECT \(Store.entryColumns) FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND Marked = 0 AND IsHeadingChanged = 0
                ORDER BY TimeStamp DESC, Key DESC LIMIT 1
                """)
            try statement.bind(sessionID, at: 1)
            return try statement.step() ? Store.readEntry(statement) : nil
        }
    }
}
