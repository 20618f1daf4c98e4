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
    /// The track points (no marks, no heading changes) in the range, in time order, as `TrackPosition`s,
    /// streamed: what simplifying a track reads. A source that can read them without making whole entries does (the
    /// store reads five columns; a simplified export reads every track point once for this).
    func forEachTrackPosition(
        of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (TrackPosition) throws -> Void) throws
    /// A session's visits by arrival (a few a day).
    func visits(of sessionID: String) throws -> [Visit]
    /// A session's region transitions in time order (a few a day).
    func transitions(of sessionID: String) throws -> [Transition]
}

/// A track point as simplifying reads it: its row key, time and position, and whether it starts a segment.
public struct TrackPosition: Sendable {
    /// The entry's row key.
    public var key: Int64
    /// When it was taken.
    public var time: Timestamp
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double
    /// Whether the recording started a new segment here.
    public var startsSegment: Bool

    /// Creates a position from its parts.
    public init(key: Int64, time: Timestamp, latitude: Double, longitude: Double, startsSegment: Bool) {
        self.key = key
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.startsSegment = startsSegment
    }
}

extension SessionSource {
    /// From `forEachEntry`'s positions (a source without a leaner read).
    public func forEachTrackPosition(
        of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (TrackPosition) throws -> Void
    ) throws {
        try forEachEntry(of: sessionID, from: from, to: to, fields: .position) { e in
            guard !e.marked && !e.isHeadingChanged else { return }
            try body(
                TrackPosition(
                    key: e.key ?? 0, time: e.time, latitude: e.latitude, longitude: e.longitude,
                    startsSegment: e.startsSegment))
        }
    }

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
