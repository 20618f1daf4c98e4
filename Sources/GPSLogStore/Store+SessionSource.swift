// SPDX-License-Identifier: MIT
import GPSLogModel

/// Exports and the web view read the user's store as a `SessionSource`.
extension Store: SessionSource {
    /// Streams the rows through an `entries(of:from:to:fields:)` cursor, one row in memory at a time.
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void
    ) throws {
        try entries(of: sessionID, from: from, to: to, fields: fields).forEach(body)
    }

    /// Streams the kept rows: a track point not in `kept` is skipped on its key and flags, its other columns unread
    /// (a simplified export of 1M points keeps a few percent of them).
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields,
        keepingTrackPoints kept: Set<Int64>,
        _ body: (Entry) throws -> Void
    ) throws {
        try entries(of: sessionID, from: from, to: to, fields: fields, keepingTrackPoints: kept).forEach(body)
    }

    /// The track points' five columns only, no entry made: a simplified export's first pass over a million points
    /// spent a tenth of its time making, copying and freeing whole entries for four of their fields.
    public func forEachTrackPosition(
        of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (TrackPosition) throws -> Void
    ) throws {
        let s = try sqlite {
            // A fresh statement, not the cache: `body` may read the store too.
            let s = try database.makeStatement(
                """
                SELECT Key, TimeStamp, Latitude, Longitude, \(EntryExtras.select("StartsSegment")) FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND TimeStamp >= ?2 AND TimeStamp <= ?3
                    AND Marked = 0 AND IsHeadingChanged = 0
                ORDER BY TimeStamp, Key
                """)
            try s.bind(sessionID, at: 1)
            try s.bind(from?.milliseconds ?? Int64.min, at: 2)
            try s.bind(to?.milliseconds ?? Int64.max, at: 3)
            return s
        }
        while try sqlite({ try s.step() }) {
            try body(
                TrackPosition(
                    key: s.requiredInt64(at: 0), time: Timestamp(milliseconds: s.requiredInt64(at: 1)),
                    latitude: s.requiredDouble(at: 2), longitude: s.requiredDouble(at: 3),
                    startsSegment: s.int64(at: 4) == 1))
        }
    }

    /// Streams the marks through a `marks(of:from:to:)` cursor.
    public func forEachMark(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void)
        throws
    {
        try marks(of: sessionID, from: from, to: to).forEach(body)
    }
}
