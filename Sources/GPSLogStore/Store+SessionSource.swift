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

    /// Streams the marks through a `marks(of:from:to:)` cursor.
    public func forEachMark(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void)
        throws
    {
        try marks(of: sessionID, from: from, to: to).forEach(body)
    }
}
