// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports GPX 1.0 and 1.1 (read by `GPXReader`): each `trk` becomes a session (named as `SessionSequence` says;
/// all in one with `merge`), each `rte` too with `routes` (else counted and skipped), and `wpt`s become marks of the
/// first one (name as label, desc as address), those of `type` `enter` or `leave` (gpslog's export of region
/// transitions) its transitions. One transaction per file. Memory stays flat for waypoints as for
/// track points: they wait for their track in a scratch file (`MarkSpool`), not in memory.
///
/// Points without a time (planned routes, some hand-edited tracks) take the time of the timed point before them,
/// or after them at the start of a track; a file with no time at all takes its metadata time, else the file's
/// modification time. The import reports how many points it dated this way.
public struct GPXImporter: TrackFileImporter {
    /// Names, `merge`, `routes`, and where notes go.
    public var options = TrackImportOptions()
    /// Session name for every track (default: the track's name, else the file's).
    public var name: String? {
        get { options.name }
        set { options.name = newValue }
    }

    /// An importer with the default options: names from the file, no merge, routes skipped.
    public init() {}

    /// An importer with `options`.
    public init(options: TrackImportOptions) { self.options = options }

    /// Imports into any target (a convert's spool).
    public func importFile(_ path: String, into store: any SessionSink) throws -> [ImportResult] {
        try FileImport.run(path, store: store) {
            let sessions = GPXSessions(path: path, options: options, store: store)
            try GPXReader.read(path, into: sessions)
            return try sessions.finish()
        }
    }
}

/// What the GPX reader reports, made into sessions. The work is done by `GPXSessionBuilder`, a struct it holds.
final class GPXSessions: GPXVisitor {
    // Why a pointer: every access to a class's stored `var` is checked for exclusivity at run time, a call into the
    // runtime per access (here: per track point). The builder lives behind a `let` pointer this class owns, and its
    // methods are `mutating`, so the compiler checks its accesses statically instead. Sound because the reader
    // calls one method at a time, on the parsing thread.
    private let builder: UnsafeMutablePointer<GPXSessionBuilder>
    private let store: any SessionSink
    /// Waypoints of type `enter` or `leave`: gpslog's transitions, stored once the sessions are made.
    private var records = SessionRecords()

    init(path: String, options: TrackImportOptions, store: any SessionSink) {
        self.store = store
        builder = .allocate(capacity: 1)
        builder.initialize(to: GPXSessionBuilder(path: path, options: options, store: store))
    }

    deinit {
        builder.deinitialize(count: 1)
        builder.deallocate()
    }

    func metadata(name: String?, time: Timestamp?) {
        // An empty <name> is no name: the track's, then the file's, is used.
        builder.pointee.metadataName = name.flatMap { $0.trimmedWhitespace.isEmpty ? nil : $0 }
        builder.pointee.metadataTime = time
    }

    func waypoint(_ point: inout Entry, hasTime: Bool) throws { try builder.pointee.addMark(point, hasTime: hasTime) }

    func transition(_ point: inout Entry, event: RegionEvent, hasTime: Bool) throws {
        // Without a time it cannot be placed: a mark, as any other waypoint.
        guard hasTime else { return try waypoint(&point, hasTime: hasTime) }
        records.addTransition(at: point, event: event)
    }

    func beginTrack(isRoute: Bool) throws { builder.pointee.beginTrack(isRoute: isRoute) }

    func trackHeader(_ header: GPXTrackHeader) { builder.pointee.setHeader(header) }

    func trackPoint(_ point: inout Entry, hasTime: Bool) throws {
        try builder.pointee.addTrackPoint(&point, hasTime: hasTime)
    }

    func endTrack() throws { try builder.pointee.finishTrack() }

    func note(_ text: String) { builder.pointee.options.notes(text) }

    /// After the document: the sessions imported.
    func finish() throws -> [ImportResult] {
        let results = try builder.pointee.finish()
        try records.store(in: results, target: store, notes: builder.pointee.options.notes)
        return results
    }
}
