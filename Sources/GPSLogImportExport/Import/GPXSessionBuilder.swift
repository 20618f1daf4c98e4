// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline

/// Sessions from GPX: the session of a track opens at its first timed point, untimed points are dated, waypoints
/// become marks of the first track (or a session of their own). Which sessions, and their names, is
/// `SessionSequence`'s.
struct GPXSessionBuilder {
    let path: String
    let options: TrackImportOptions
    var metadataName: String?
    var metadataTime: Timestamp?
    /// Waypoints no track has taken yet (they come before the tracks, which make the sessions).
    private var marks: MarkSpool?
    /// Whether a track has taken the waypoints read so far.
    private var marksTaken = false
    private var sessions: SessionSequence
    /// Routes skipped (without `routes`), and their points.
    private var skippedRoutes = 0
    private var skippedRoutePoints = 0
    private let stem: String

    /// The trk or rte being read.
    private struct Track {
        var marks: MarkSpool?
        var header = GPXTrackHeader()
        var skipped = false
        var opened = false
        /// Untimed points at the start of the track, in a scratch file (a track with no time at all, or a long
        /// route, would otherwise be held whole in memory).
        var waiting: MarkSpool?
        var lastTime: Timestamp?
    }
    private var track = Track()
    /// With `merge`: the points of whole tracks without a time read before the file's first timed point, and the
    /// first such track's header. They are one track of the merged session, dated at that first time (the time after
    /// them, as at a track's start), not at the file's metadata time.
    private var carried: (points: MarkSpool, header: GPXTrackHeader)?

    init(path: String, options: TrackImportOptions, store: any SessionSink) {
        self.path = path
        self.options = options
        sessions = SessionSequence(store: store, options: options)
        stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    mutating func addMark(_ entry: Entry, hasTime: Bool) throws {
        if marks == nil { marks = try MarkSpool() }
        var e = entry
        e.marked = true
        try marks!.add(e, hasTime: hasTime)
    }

    mutating func beginTrack(isRoute: Bool) {
        // The first track with points takes the waypoints (given back below when it has none).
        track = Track(marks: marksTaken ? nil : marks, skipped: isRoute && !options.routes)
        if !marksTaken { marks = nil }
    }

    mutating func setHeader(_ header: GPXTrackHeader) { track.header = header }

    mutating func addTrackPoint(_ entry: inout Entry, hasTime: Bool) throws {
        if track.skipped {
            skippedRoutePoints += 1
            return
        }
        if hasTime && track.opened && track.waiting == nil {
            // The common case: a timed point of a track whose session is open.
            track.lastTime = entry.time
            entry.id = sessions.trackPointID(entry.time)
            try sessions.add(entry)
            return
        }
        if hasTime {
            try openTrackSession(at: entry.time)
            try addCarried(at: entry.time)
            try addWaiting(at: entry.time)
            track.lastTime = entry.time
            entry.id = sessions.trackPointID(entry.time)
            try sessions.add(entry)
        } else if let lastTime = track.lastTime {
            var e = entry
            e.time = lastTime
            e.id = sessions.trackPointID(e.time)
            try sessions.add(e)
        } else {
            if track.waiting == nil { track.waiting = try MarkSpool() }
            try track.waiting!.add(entry, hasTime: false)
        }
    }

    /// The points waiting for a time get `time`.
    private mutating func addWaiting(at time: Timestamp) throws {
        guard let waiting = track.waiting else { return }
        track.waiting = nil
        try waiting.forEach(untimedAt: time) { w in
            var w = w
            w.id = sessions.trackPointID(w.time)
            try sessions.add(w)
        }
    }

    /// The carried tracks' points get `time`, as a segment of their own before the track being read.
    private mutating func addCarried(at time: Timestamp) throws {
        guard let points = carried?.points else { return }
        carried = nil
        try points.forEach(untimedAt: time) { p in
            var p = p
            p.id = sessions.trackPointID(p.time)
            try sessions.add(p)
        }
        sessions.beginSegment()
    }

    private func fallbackTime() -> Timestamp {
        if let metadataTime { return metadataTime }
        let date = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        return Timestamp(seconds: date.timeIntervalSince1970)
    }

    private mutating func openTrackSession(at time: Timestamp) throws {
        guard !track.opened else { return }
        track.opened = true
        // The first timed point starts the session (a file's metadata time is when the file was written,
        // sometimes years off); marks earlier than it move the start back.
        let begin = min(track.marks?.earliest ?? time, time)
        let header = carried?.header ?? track.header  // a merged file's session is named after its first track
        try sessions.begin(
            ownName: header.name, documentName: metadataName, stem: stem, start: begin, mode: header.mode,
            preferredID: header.sourceID)
    }

    mutating func finishTrack() throws {
        if track.skipped {
            skippedRoutes += 1
            if let given = track.marks { marks = given }
            return
        }
        if options.merge, !sessions.isOpen, let waiting = track.waiting {
            // A track without a time before any timed one: it waits for the file's first time.
            if var spool = carried?.points {
                try waiting.forEach(untimedAt: Timestamp(milliseconds: 0)) { try spool.add($0, hasTime: false) }
                carried!.points = spool
            } else {
                carried = (waiting, track.header)
            }
            track.waiting = nil
            if let given = track.marks { marks = given }
            return
        }
        if track.waiting != nil {
            let time = fallbackTime()
            try openTrackSession(at: time)
            try addWaiting(at: time)
        }
        guard track.opened else {
            if let given = track.marks { marks = given }  // no points: the waypoints wait for the next track
            return
        }
        if let taken = track.marks {
            let start = sessions.session!.start
            try taken.forEach(untimedAt: start) { m in
                var m = m
                m.id = sessions.markID(m.time)
                try sessions.add(m)
            }
            marksTaken = true
        }
        try sessions.end()
    }

    /// After the document: waypoints no track took make a session of marks (with `merge`, they join the one).
    mutating func finish() throws -> [ImportResult] {
        if skippedRoutes > 0 {
            options.notes(
                "skipped \(counted(skippedRoutes, "route")) (\(counted(skippedRoutePoints, "point"))); "
                    + "--routes imports each as a session")
        }
        if let header = carried?.header {
            // A merged file without any time: its tracks take the metadata time, as one file's track would.
            let time = fallbackTime()
            track = Track(marks: marksTaken ? nil : marks, header: header)
            if !marksTaken { marks = nil }
            try openTrackSession(at: time)
            try addCarried(at: time)
            try finishTrack()
        }
        if let marks {
            let first = marks.earliest ?? fallbackTime()
            if !sessions.isOpen {
                try sessions.begin(ownName: nil, documentName: metadataName, stem: stem, start: first, mode: nil)
            }
            try marks.forEach(untimedAt: first) { m in
                var m = m
                m.id = sessions.markID(m.time)
                try sessions.add(m)
            }
            try sessions.end()
        }
        let results = try sessions.finish()
        guard !results.isEmpty else {
            throw ImportError.noFixes(
                file: path,
                detail: skippedRoutes > 0
                    ? "no track or waypoint; \(skippedRoutes) route(s) skipped: --routes imports them"
                    : "no track, route or waypoint")
        }
        return results
    }
}
