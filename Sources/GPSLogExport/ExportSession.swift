// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore

/// Where a session's rows are read from: the user's `Store`, or a convert's `TrackSpool`.
public protocol SessionSource: AnyObject {
    /// A session's marks in time order.
    func marks(of sessionID: String) throws -> [Entry]
    /// Every row of a session in time order (ties in insertion order), within the range, streamed. A source may
    /// leave out what `fields` does not ask for (the store does; a spool holds every field anyway).
    func forEachEntry(of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void) throws
}

extension SessionSource {
    /// Every row, every field.
    public func forEachEntry(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void) throws {
        try forEachEntry(of: sessionID, from: from, to: to, fields: .all, body)
    }
}

extension Store: SessionSource {
    public func forEachEntry(of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void) throws {
        try entries(of: sessionID, from: from, to: to, fields: fields).forEach(body)
    }
}

/// One session as the writers see it: its row, its marks, and its entries streamed from the store.
public struct SessionExport {
    public let session: Session
    /// Marks in time order (few: kept in memory so GPX can write them first, as its schema orders wpt before trk).
    public let marks: [Entry]
    let store: any SessionSource
    let from: Timestamp?
    let to: Timestamp?
    /// Keys of the track points kept by simplification; nil keeps all.
    let kept: Set<Int64>?
    /// Called for every entry read (progress bars of long exports; formats that read twice call it twice).
    public var onEntry: (() -> Void)?

    /// Loads a session's marks; `simplify` (metres) thins the track with GEOS.
    public init(store: any SessionSource, session: Session, from: Timestamp? = nil, to: Timestamp? = nil, simplify: Double? = nil) throws {
        self.store = store
        self.session = session
        self.from = from
        self.to = to
        marks = try store.marks(of: session.id).filter { mark in
            (from.map { mark.time >= $0 } ?? true) && (to.map { mark.time <= $0 } ?? true)
        }
        if let simplify, simplify > 0 {
            var points: [Simplifier.Point] = []
            try store.forEachEntry(of: session.id, from: from, to: to, fields: .track) { e in
                if !e.marked && !e.isHeadingChanged { points.append(.init(key: e.key ?? 0, latitude: e.latitude, longitude: e.longitude)) }
            }
            kept = try Simplifier.keptKeys(points, tolerance: simplify)
        } else {
            kept = nil
        }
    }

    /// Every row in time order: track points, marks and heading changes (within the time range). `.track` fields
    /// are for writers that draw the track only (see `EntryFields`).
    public func forEachEntry(fields: EntryFields = .all, _ body: (Entry) throws -> Void) throws {
        try store.forEachEntry(of: session.id, from: from, to: to, fields: fields) { e in
            onEntry?()
            if let kept, !e.marked, !e.isHeadingChanged, !kept.contains(e.key ?? -1) { return }
            try body(e)
        }
    }

    /// The track: location rows (not marks, not heading changes) in time order, after simplification.
    public func forEachTrackPoint(fields: EntryFields = .all, _ body: (Entry) throws -> Void) throws {
        try forEachEntry(fields: fields) { e in
            if !e.marked && !e.isHeadingChanged { try body(e) }
        }
    }
}

/// Splits a track into segments where the time between two points exceeds the gap (a receiver switched off, a
/// tunnel, a paused recording): GPX writes a new trkseg, GeoJSON a MultiLineString.
public struct TrackSegmenter {
    /// Five minutes: longer than any pause a 1 s-to-1 min sampler leaves while moving, shorter than a stop that
    /// should not be drawn as a straight line.
    public static let defaultGapMilliseconds: Int64 = 5 * 60 * 1000

    public let gap: Int64
    private var last: Timestamp?

    public init(gapMilliseconds: Int64 = TrackSegmenter.defaultGapMilliseconds) { gap = gapMilliseconds }

    /// True when `time` starts a new segment (never for the first point).
    public mutating func startsSegment(_ time: Timestamp) -> Bool {
        defer { last = time }
        guard let last else { return false }
        return time.milliseconds - last.milliseconds > gap
    }
}
