// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports GeoJSON (read by `GeoJSONReader`, streaming): LineStrings and MultiLineStrings with `coordTimes`
/// (gpslog's own export, togeojson's) each become a session (a MultiLineString's lines its segments), their
/// `coordAttributes` (gpslog's) the points' attributes; Points with a time (Overland's, GPSLogger's, ocat's,
/// Dawarich's, GDAL's `track_points`) are track points, a session per group (gpslog's `session`, GDAL's
/// `track_fid`); Points without a time, or gpslog's `kind: mark`, are marks (`label` or `name` as the label,
/// `address` or `desc` as the address). gpslog's visits and transitions are stored as the session's
/// (`SessionRecords`). One transaction per file; memory stays flat (see `GeoJSONReader`, `PointSessions`).
public struct GeoJSONImporter: TrackFileImporter {
    /// Names, `merge`, and where notes go.
    public var options = TrackImportOptions()

    /// An importer with `options` (by default: names from the file, no merge).
    public init(options: TrackImportOptions = TrackImportOptions()) { self.options = options }

    /// Imports into any target (a convert's spool, a dry run).
    public func importFile(_ path: String, into store: any SessionSink) throws -> [ImportResult] {
        try FileImport.run(path, store: store) {
            let sessions = GeoJSONSessions(path: path, options: options, store: store)
            try GeoJSONReader.read(path, into: sessions)
            return try sessions.finish()
        }
    }
}

/// What the GeoJSON reader reports, made into sessions by `PointSessions` (behind a pointer, as `GPXSessions`
/// holds its builder: one static exclusivity check instead of one at run time per point).
final class GeoJSONSessions: GeoJSONVisitor {
    private let state: UnsafeMutablePointer<State>
    private let options: TrackImportOptions
    private let store: any SessionSink

    private struct State {
        var sessions: PointSessions
        var records = SessionRecords()
        /// The line being read.
        var line = PointSessions.Group()
        var skippedRecords = 0
        /// Points without a time: Point features (marks, or a GDAL track's points), and positions of lines
        /// without `coordTimes`.
        var untimedPoints = 0
        var untimedMarks = 0
        var untimedLinePoints = 0
    }

    init(path: String, options: TrackImportOptions, store: any SessionSink) {
        self.options = options
        self.store = store
        state = .allocate(capacity: 1)
        state.initialize(to: State(sessions: PointSessions(path: path, options: options, store: store)))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    func point(_ position: GeoJSONPosition, properties p: GeoJSONProperties) throws {
        guard Geo.isPlausiblePosition(latitude: position.latitude, longitude: position.longitude) else { return }
        // gpslog's visits and transitions: stored with their session once it is made.
        if p.kind == "transition", let event = p.event, let time = p.time {
            var at = Entry(id: "", latitude: position.latitude, longitude: position.longitude, time: time)
            at.label = p.region
            state.pointee.records.addTransition(at: at, event: event, regionID: p.regionID, session: p.session)
            return
        }
        if p.kind == "visit", let arrival = p.arrival {
            let visit = Visit(
                latitude: position.latitude, longitude: position.longitude,
                horizontalAccuracy: p.horizontalAccuracy ?? 0, arrival: arrival, departure: p.departure,
                address: p.address, name: p.name)
            state.pointee.records.addVisit(visit, session: p.session)
            return
        }
        if p.kind == "visit" || p.kind == "transition" {
            state.pointee.skippedRecords += 1
            return
        }
        var e = p.entry(at: position)
        let key = p.session ?? p.track
        // A Point without a time is a waypoint, unless it says it is a track's (GDAL's track_points layer).
        if p.kind == "mark" || (p.time == nil && p.track == nil && p.kind != "track") {
            e.label = p.label ?? p.name
            if p.time == nil { state.pointee.untimedMarks += 1 }
            try state.pointee.sessions.mark(e, hasTime: p.time != nil, key: key)
            return
        }
        if p.time == nil { state.pointee.untimedPoints += 1 }
        let group = PointSessions.Group(key: key, name: nil, mode: p.mode, preferredID: p.session)
        try state.pointee.sessions.track(e, hasTime: p.time != nil, group: group, segment: p.segment)
    }

    func beginLine(properties p: GeoJSONProperties) throws {
        let group = PointSessions.Group(
            key: p.session ?? p.track, name: p.name, mode: p.mode, preferredID: p.session, start: p.start, end: p.end)
        state.pointee.line = group
        try state.pointee.sessions.beginLine(group)
    }

    func linePoint(
        _ position: GeoJSONPosition, time: Timestamp?, attributes: [String: String]?, startsPart: Bool
    ) throws {
        guard Geo.isPlausiblePosition(latitude: position.latitude, longitude: position.longitude) else { return }
        var e = Entry(
            id: "", latitude: position.latitude, longitude: position.longitude, altitude: position.altitude,
            time: time ?? Timestamp(milliseconds: 0))
        e.attributes = attributes
        if time == nil { state.pointee.untimedLinePoints += 1 }
        try state.pointee.sessions.track(e, hasTime: time != nil, group: state.pointee.line, startsPart: startsPart)
    }

    func endLine() throws {}

    func note(_ text: String) { options.notes(text) }

    /// After the document: the sessions imported.
    func finish() throws -> [ImportResult] {
        let s = state.pointee
        if s.skippedRecords > 0 {
            options.notes(
                "skipped \(s.skippedRecords) visit and transition feature(s): they are not points of a track")
        }
        let names = "timestamp, time, datetime, date, when, recorded_at, tst or isotst"
        if s.untimedMarks > 0 {
            options.notes(
                "\(s.untimedMarks) Point feature(s) have no time (no \(names) property that is one): imported as "
                    + "marks, each at the time of the point before it, else its session's start, else the file's "
                    + "modification time")
        }
        if s.untimedPoints > 0 {
            options.notes(
                "\(s.untimedPoints) track Point feature(s) have no time (no \(names) property that is one): each "
                    + "took the time of the point before it (or after it, else the file's modification time)")
        }
        if s.untimedLinePoints > 0 {
            options.notes(
                "\(s.untimedLinePoints) line position(s) have no time (no coordTimes): each took the time of the "
                    + "point before it (or after it, else the file's modification time)")
        }
        let results = try state.pointee.sessions.finish()
        guard !results.isEmpty else {
            throw ImportError.noFixes(file: state.pointee.sessions.path, detail: "no Point or line feature")
        }
        try state.pointee.records.store(in: results, target: store, notes: options.notes)
        return results
    }
}
