// SPDX-License-Identifier: MIT

/// Where a session's rows are read from: the user's `Store`, or a convert's `TrackSpool` (each conforms in its
/// own module), defined in the model so the store need not know the formats that read it.
public protocol SessionSource: AnyObject {
    /// A session's marks in time order (ties in insertion order), within the range, streamed.
    func forEachMark(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void) throws
    /// Every row of a session in time order (ties in insertion order), within the range, streamed. A source may
    /// leave out what `fields` does not ask for (the store does; a spool holds every field anyway).
    func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void)
        throws
    /// `forEachEntry`, with only the track points whose key is in `kept` (marks and heading changes all): a
    /// simplified export. A source that can leave the other rows unread does (the store skips them before reading
    /// their columns).
    func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields,
        keepingTrackPoints kept: Set<Int64>,
        _ body: (Entry) throws -> Void) throws
    /// A session's visits by arrival (a few a day).
    func visits(of sessionID: String) throws -> [Visit]
    /// A session's region transitions in time order (a few a day).
    func transitions(of sessionID: String) throws -> [Transition]
}

extension SessionSource {
    /// Every row, every field.
    public func forEachEntry(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void)
        throws
    {
        try forEachEntry(of: sessionID, from: from, to: to, fields: .all, body)
    }

    /// Reads every row and hands on the kept ones.
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields,
        keepingTrackPoints kept: Set<Int64>,
        _ body: (Entry) throws -> Void
    ) throws {
        try forEachEntry(of: sessionID, from: from, to: to, fields: fields) { e in
            if e.marked || e.isHeadingChanged || kept.contains(e.key ?? -1) { try body(e) }
        }
    }
}
