// SPDX-License-Identifier: MIT
import GPSLogModel

/// One session as the writers see it: its row, and its marks and entries streamed from the store (GPX, whose schema
/// puts every wpt before the first trk, reads the marks first and the track after: two reads, flat memory).
public struct SessionExport {
    /// The session's row.
    public let session: Session
    let store: any SessionSource
    let from: Timestamp?
    let to: Timestamp?
    /// Keys of the track points kept by simplification; nil keeps all.
    let kept: Set<Int64>?
    /// Called for every entry read (progress bars of long exports; formats that read twice call it twice). A
    /// simplified export reads the kept track points only, so it is called for those and the marks.
    public var onEntry: (() -> Void)?
    /// How many track points simplification kept; nil when not simplified.
    public var keptTrackPointCount: Int? { kept?.count }

    /// A session to export (within the time range). `kept`: the keys of the track points to write, nil for all (a
    /// simplified track; GPSLogImportExport computes them with GEOS).
    public init(
        store: any SessionSource, session: Session, from: Timestamp? = nil, to: Timestamp? = nil,
        keeping kept: Set<Int64>? = nil
    ) {
        self.store = store
        self.session = session
        self.from = from
        self.to = to
        self.kept = kept
    }

    /// The marks in time order (within the time range), streamed.
    public func forEachMark(_ body: (Entry) throws -> Void) throws {
        try store.forEachMark(of: session.id, from: from, to: to, body)
    }

    /// The visits that began within the time range, by arrival.
    public func visits() throws -> [Visit] {
        try store.visits(of: session.id).filter { v in
            (from.map { v.arrival >= $0 } ?? true) && (to.map { v.arrival <= $0 } ?? true)
        }
    }

    /// The region transitions within the time range, in time order, each with its `t`.
    public func transitions() throws -> [Transition] {
        try store.transitions(of: session.id).filter { t in
            (from.map { t.time >= $0 } ?? true) && (to.map { t.time <= $0 } ?? true)
        }
    }

    /// Every row in time order: track points, marks and heading changes (within the time range). `.track` fields
    /// are for writers that draw the track only (see `EntryFields`).
    public func forEachEntry(fields: EntryFields = .all, _ body: (Entry) throws -> Void) throws {
        guard let kept else {
            try store.forEachEntry(of: session.id, from: from, to: to, fields: fields) { e in
                onEntry?()
                try body(e)
            }
            return
        }
        try store.forEachEntry(of: session.id, from: from, to: to, fields: fields, keepingTrackPoints: kept) { e in
            onEntry?()
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
