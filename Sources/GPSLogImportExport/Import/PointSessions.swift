// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline

/// Sessions from files of points one after the other (GeoJSON features, CSV rows): consecutive points of one group
/// (gpslog's `session` id, GDAL's `track_fid`, a GeoJSON line) make a session, which opens at its first timed point;
/// a change of segment (GDAL's `track_seg_id`, a MultiLineString's next line) starts a new segment. Points without a
/// time take the time of the point before them, or after them at a group's start, or the file's modification time
/// when the group has none. Marks join the open session of their group, or wait (in a scratch file) for the next
/// session to open, as GPX waypoints do. Which sessions, and their names, is `SessionSequence`'s.
struct PointSessions {
    /// What makes points one session.
    struct Group: Equatable {
        /// The group's key: points with another key start another session (nil: no key).
        var key: String?
        var name: String?
        var mode: TripMode?
        /// A session id to keep when it is free, and the session's start and end (gpslog's own exports).
        var preferredID: String?
        var start: Timestamp?
        var end: Timestamp?
    }

    let path: String
    private var sessions: SessionSequence
    private let stem: String
    private var group: Group?
    private var opened = false
    /// Points of the group read before its first time, in file order.
    private var waiting: MarkSpool?
    private var waitingCount = 0
    private var lastTime: Timestamp?
    private var lastSegment: String?
    private var segmentNext = false
    /// Marks waiting for a session.
    private var marks: MarkSpool?

    init(path: String, options: TrackImportOptions, store: any SessionSink) {
        self.path = path
        sessions = SessionSequence(store: store, options: options)
        stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// A line starts a group of its own, unless it carries the key of the group open (then a new segment).
    mutating func beginLine(_ g: Group) throws {
        if let group, g.key != nil, g.key == group.key {
            segmentNext = opened
            return
        }
        try closeGroup()
        group = g
    }

    /// A track point; it joins the open group when it has the same key, else starts a group.
    mutating func track(_ entry: Entry, hasTime: Bool, group g: Group, segment: String? = nil, startsPart: Bool = false)
        throws
    {
        if group == nil || group!.key != g.key {
            try closeGroup()
            group = g
            lastSegment = segment
        } else if segment != lastSegment {
            lastSegment = segment
            segmentNext = opened || waitingCount > 0
        }
        var e = entry
        e.startsSegment = (startsPart && (opened || waitingCount > 0)) || segmentNext
        if hasTime {
            try open(at: e.time)
            lastTime = e.time
        } else if let lastTime {
            e.time = lastTime
        } else {
            if waiting == nil { waiting = try MarkSpool() }
            try waiting!.add(e, hasTime: false)
            waitingCount += 1
            segmentNext = false
            return
        }
        segmentNext = false
        e.id = sessions.trackPointID(e.time, own: e.id)
        try sessions.add(e)
    }

    /// A mark (`marked` set); it joins the open session when its key is nil or the group's, else waits.
    mutating func mark(_ entry: Entry, hasTime: Bool, key: String?) throws {
        var e = entry
        e.marked = true
        if opened, key == nil || key == group?.key {
            if !hasTime { e.time = lastTime ?? sessions.session!.start }
            e.id = sessions.markID(e.time, own: e.id)
            try sessions.add(e)
            return
        }
        if marks == nil { marks = try MarkSpool() }
        try marks!.add(e, hasTime: hasTime)
    }

    /// Opens the group's session at its first time: the points waiting take that time, as do marks without one.
    private mutating func open(at time: Timestamp) throws {
        guard !opened else { return }
        opened = true
        let g = group ?? Group()
        let start = min(marks?.earliest ?? time, time, g.start ?? time)
        try sessions.begin(
            ownName: g.name, documentName: nil, stem: stem, start: start, end: g.end, mode: g.mode,
            preferredID: g.preferredID)
        if let waiting {
            try waiting.forEach(untimedAt: time) { w in
                var w = w
                w.id = sessions.trackPointID(w.time, own: w.id)
                try sessions.add(w)
            }
            self.waiting = nil
            waitingCount = 0
        }
        if let taken = marks {
            try taken.forEach(untimedAt: start) { m in
                var m = m
                m.id = sessions.markID(m.time, own: m.id)
                try sessions.add(m)
            }
            marks = nil
        }
    }

    /// Ends the open group: points that never met a time take the file's.
    private mutating func closeGroup() throws {
        if waitingCount > 0 { try open(at: fallbackTime()) }
        if opened { try sessions.end() }
        opened = false
        group = nil
        lastTime = nil
        lastSegment = nil
        segmentNext = false
    }

    private func fallbackTime() -> Timestamp {
        let date = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        return Timestamp(seconds: date.timeIntervalSince1970)
    }

    /// After the file: marks no session took make a session of their own.
    mutating func finish() throws -> [ImportResult] {
        try closeGroup()
        if let marks {
            group = Group()
            try open(at: marks.earliest ?? fallbackTime())
            try closeGroup()
        }
        return try sessions.finish()
    }
}
