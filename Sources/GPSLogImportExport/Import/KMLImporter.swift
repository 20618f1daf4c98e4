// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports KML and KMZ (read by `KMLReader`, streaming; what becomes what is said there): each placemark's line, and
/// each folder's run of timed Point placemarks, becomes a session (named as `SessionSequence` says; all in one with
/// `merge`); Point placemarks that are not a track's become marks of the session before them, or of the next (with
/// an `ExtendedData` `event`, enter or leave, gpslog's transitions: the transitions of the session they fall in).
/// GPSBabel's routes are imported only with `routes`, as GPX's. Points without a time are dated as GPX's are (the
/// time before them, or after them at a track's start, else the file's modification time), and counted in a note.
/// One transaction per file; memory stays flat (`PointSessions`, `KMLPointQueue`).
public struct KMLImporter: TrackFileImporter {
    /// Names, `merge`, `routes`, and where notes go.
    public var options = TrackImportOptions()

    /// An importer with `options` (by default: names from the file, no merge, routes skipped).
    public init(options: TrackImportOptions = TrackImportOptions()) { self.options = options }

    /// Imports into any target (a convert's spool, a dry run).
    public func importFile(_ path: String, into store: any SessionSink) throws -> [ImportResult] {
        try FileImport.run(path, store: store) {
            let sessions = KMLSessions(path: path, options: options, store: store)
            try KMLReader.read(path, into: sessions)
            return try sessions.finish()
        }
    }
}

/// What the KML reader reports, made into sessions by `PointSessions` (behind a pointer, as `GPXSessions` holds its
/// builder: one static exclusivity check instead of one at run time per point).
final class KMLSessions: KMLVisitor {
    private let state: UnsafeMutablePointer<State>
    private let options: TrackImportOptions
    private let store: any SessionSink

    private struct State {
        var sessions: PointSessions
        /// The line being read, and whether it is a route left out.
        var line = PointSessions.Group()
        var lineSkipped = false
        var routes = TrackCounts()
        var untimed = 0
        /// gpslog's transitions, stored once the sessions are made.
        var records = SessionRecords()
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

    func beginLine(_ line: KMLTrack) throws {
        if line.isRoute && !options.routes {
            state.pointee.lineSkipped = true
            state.pointee.routes.add(line.key)
            return
        }
        let group = PointSessions.Group(key: line.key, name: line.name)
        state.pointee.line = group
        state.pointee.lineSkipped = false
        try state.pointee.sessions.beginLine(group)
    }

    func linePoint(_ point: inout Entry, hasTime: Bool, startsPart: Bool) throws {
        if state.pointee.lineSkipped {
            state.pointee.routes.points += 1
            return
        }
        guard Geo.isPlausiblePosition(latitude: point.latitude, longitude: point.longitude) else { return }
        if !hasTime { state.pointee.untimed += 1 }
        try state.pointee.sessions.track(point, hasTime: hasTime, group: state.pointee.line, startsPart: startsPart)
    }

    func trackPoint(_ point: inout Entry, hasTime: Bool, track: KMLTrack) throws {
        if track.isRoute && !options.routes {
            state.pointee.routes.add(track.key)
            state.pointee.routes.points += 1
            return
        }
        guard Geo.isPlausiblePosition(latitude: point.latitude, longitude: point.longitude) else { return }
        if !hasTime { state.pointee.untimed += 1 }
        let group = PointSessions.Group(key: track.key, name: track.name)
        try state.pointee.sessions.track(point, hasTime: hasTime, group: group, segment: track.segment)
    }

    func mark(_ point: inout Entry, hasTime: Bool) throws {
        guard Geo.isPlausiblePosition(latitude: point.latitude, longitude: point.longitude) else { return }
        try state.pointee.sessions.mark(point, hasTime: hasTime, key: nil)
    }

    func transition(_ point: inout Entry, event: RegionEvent, hasTime: Bool) throws {
        guard hasTime else { return try mark(&point, hasTime: hasTime) }
        guard Geo.isPlausiblePosition(latitude: point.latitude, longitude: point.longitude) else { return }
        state.pointee.records.addTransition(at: point, event: event)
    }

    func note(_ text: String) { options.notes(text) }

    /// After the document: the sessions imported.
    func finish() throws -> [ImportResult] {
        let s = state.pointee
        if s.routes.tracks > 0 {
            options.notes("skipped \(s.routes.description) (GPSBabel's Routes); --routes imports each as a session")
        }
        if s.untimed > 0 {
            options.notes(
                "\(s.untimed) track point(s) have no time: each took the time of the point before it (or after it, "
                    + "else the file's modification time)")
        }
        let results = try state.pointee.sessions.finish()
        guard !results.isEmpty else {
            throw ImportError.noFixes(
                file: s.sessions.path,
                detail: s.routes.tracks > 0
                    ? "no track or mark; \(s.routes.description) skipped: --routes imports them"
                    : "no placemark with a point, a line or a gx:Track")
        }
        try s.records.store(in: results, target: store, notes: options.notes)
        return results
    }
}

/// Routes skipped: how many (told apart by key) and their points.
struct TrackCounts: CustomStringConvertible {
    private var last: String?
    private(set) var tracks = 0
    var points = 0

    mutating func add(_ key: String) {
        guard key != last else { return }
        last = key
        tracks += 1
    }

    var description: String { "\(counted(tracks, "route")) (\(counted(points, "point")))" }
}
