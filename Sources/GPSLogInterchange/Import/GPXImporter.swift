// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore

/// Imports GPX 1.0 and 1.1 (read by `GPXReader`): each `trk` or `rte` becomes a session, `wpt`s become marks of the
/// first one (name as label, desc as address). One transaction per file. Memory stays flat for waypoints as for
/// track points: they wait for their track in a scratch file (`MarkSpool`), not in memory.
///
/// Points without a time (planned routes, some hand-edited tracks) take the time of the timed point before them,
/// or after them at the start of a track; a file with no time at all takes its metadata time, else the file's
/// modification time. The import reports how many points it dated this way.
public struct GPXImporter {
    /// Session name for every track (default: the track's name, else the file's).
    public var name: String?

    public init() {}

    /// Imports into the user's store, parsing on this thread while a second one stores (see `PipelinedImportTarget`).
    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        try importFile(path, into: PipelinedImportTarget(store))
    }

    /// Imports into any target (a convert's spool).
    public func importFile(_ path: String, into store: any ImportTarget) throws -> [ImportResult] {
        try XMLImport.run(path, store: store) {
            let sessions = GPXSessions(path: path, name: name, store: store)
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

    init(path: String, name: String?, store: any ImportTarget) {
        builder = .allocate(capacity: 1)
        builder.initialize(to: GPXSessionBuilder(path: path, name: name, store: store))
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

    func beginTrack(isRoute: Bool) throws { builder.pointee.beginTrack() }

    func trackHeader(_ header: GPXTrackHeader) { builder.pointee.setHeader(header) }

    func trackPoint(_ point: inout Entry, hasTime: Bool) throws {
        try builder.pointee.addTrackPoint(&point, hasTime: hasTime)
    }

    func endTrack() throws { try builder.pointee.finishTrack() }

    /// After the document: the sessions imported.
    func finish() throws -> [ImportResult] { try builder.pointee.finish() }
}

/// Sessions from GPX: the session of a track opens at its first timed point, untimed points are dated, waypoints
/// become marks of the first track (or a session of their own).
struct GPXSessionBuilder {
    /// A point as read, before it has a time.
    struct Point {
        var entry: Entry
        var hasTime: Bool
    }

    let path: String
    let name: String?
    let store: any ImportTarget
    var metadataName: String?
    var metadataTime: Timestamp?
    /// Waypoints no track has taken yet (they come before the tracks, which make the sessions).
    private var marks: MarkSpool?
    private var results: [ImportResult] = []
    private lazy var stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension

    /// The trk or rte being read.
    private struct Track {
        var defaultName: String
        var marks: MarkSpool?
        var header = GPXTrackHeader()
        var sink: EntrySink?
        var waiting: [Entry] = []  // untimed points at the start of the track
        var lastTime: Timestamp?
    }
    private var track: Track?

    init(path: String, name: String?, store: any ImportTarget) {
        self.path = path
        self.name = name
        self.store = store
    }

    mutating func addMark(_ entry: Entry, hasTime: Bool) throws {
        if marks == nil { marks = try MarkSpool() }
        var e = entry
        e.marked = true
        try marks!.add(e, hasTime: hasTime)
    }

    mutating func beginTrack() {
        // The first track with points takes the waypoints (given back below when it has none).
        track = Track(defaultName: name ?? metadataName ?? stem, marks: results.isEmpty ? marks : nil)
        if results.isEmpty { marks = nil }
    }

    mutating func setHeader(_ header: GPXTrackHeader) { track?.header = header }

    mutating func addTrackPoint(_ entry: inout Entry, hasTime: Bool) throws {
        if hasTime, try Self.appendTimed(&entry, to: &track!) { return }
        var p = Point(entry: entry, hasTime: hasTime)
        if p.hasTime {
            try openTrackSession(at: p.entry.time)
            for var w in track!.waiting {
                w.time = p.entry.time
                w.id = track!.sink!.makeTrackPointID(w.time)
                try track!.sink!.add(w)
            }
            track!.waiting.removeAll()
            track!.lastTime = p.entry.time
            p.entry.id = track!.sink!.makeTrackPointID(p.entry.time)
            try track!.sink!.add(p.entry)
        } else if let lastTime = track!.lastTime {
            var e = p.entry
            e.time = lastTime
            e.id = track!.sink!.makeTrackPointID(e.time)
            try track!.sink!.add(e)
        } else {
            track!.waiting.append(p.entry)
        }
    }

    /// The common case in one access to the track state: a timed point of a track whose session is open and has no
    /// untimed points waiting for a time. False when it is not that case (nothing done).
    private static func appendTimed(_ entry: inout Entry, to t: inout Track) throws -> Bool {
        guard t.waiting.isEmpty, t.sink != nil else { return false }
        t.lastTime = entry.time
        entry.id = t.sink!.makeTrackPointID(entry.time)
        try t.sink!.add(entry)
        return true
    }

    private func fallbackTime() -> Timestamp {
        if let metadataTime { return metadataTime }
        let date = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        return Timestamp(seconds: date.timeIntervalSince1970)
    }

    private mutating func openTrackSession(at time: Timestamp) throws {
        guard track!.sink == nil else { return }
        // The first timed point starts the session (a file's metadata time is when the file was written,
        // sometimes years off); marks earlier than it move the start back.
        let t = track!
        let begin = min(t.marks?.earliest ?? time, time)
        track!.sink = try EntrySink(
            store: store, name: name ?? t.header.name.flatMap { $0.isEmpty ? nil : $0 } ?? t.defaultName, start: begin,
            mode: t.header.mode,
            preferredID: t.header.sourceID)
    }

    mutating func finishTrack() throws {
        if !track!.waiting.isEmpty {
            let time = fallbackTime()
            try openTrackSession(at: time)
            for var w in track!.waiting {
                w.time = time
                w.id = track!.sink!.makeTrackPointID(time)
                try track!.sink!.add(w)
            }
        }
        let t = track!
        track = nil
        guard var sink = t.sink else {
            if let taken = t.marks { marks = taken }
            return
        }
        try t.marks?.forEach(untimedAt: sink.session!.start) { m in
            var m = m
            m.id = sink.makeID(m.time)
            try sink.add(m)
        }
        results.append(try sink.finish())
    }

    /// After the document: waypoints with no track make a session of marks.
    mutating func finish() throws -> [ImportResult] {
        if let marks {
            let first = marks.earliest ?? fallbackTime()
            var sink = try EntrySink(
                store: store, name: name ?? metadataName ?? stem, start: first, mode: nil, preferredID: nil)
            try marks.forEach(untimedAt: first) { m in
                var m = m
                m.id = sink.makeID(m.time)
                try sink.add(m)
            }
            results.append(try sink.finish())
        }
        guard !results.isEmpty else { throw ImportError.noFixes(file: path, detail: "no track, route or waypoint") }
        return results
    }
}

/// Waypoints waiting for the track that takes them, in file order, in a scratch file: a GPX of a million waypoints
/// imports in flat memory. An untimed waypoint is dated when it is read back.
struct MarkSpool {
    private let file: SpoolFile
    /// The earliest time of a timed waypoint.
    private(set) var earliest: Timestamp?
    // A time no GPX time can be (`Timestamp` parses years 0...9999): the record of a waypoint without one.
    private static let untimed = Timestamp(milliseconds: .min)

    init() throws { file = try SpoolFile(name: "waypoints") }

    mutating func add(_ mark: Entry, hasTime: Bool) throws {
        var mark = mark
        if hasTime {
            earliest = min(earliest ?? mark.time, mark.time)
        } else {
            mark.time = Self.untimed
        }
        try file.append(mark)
    }

    /// Each waypoint in file order, an untimed one at `time`.
    func forEach(untimedAt time: Timestamp, _ body: (Entry) throws -> Void) throws {
        try file.flush()
        var cursor = SpoolCursor(descriptor: file.descriptor, ranges: [0..<file.end])
        while var mark = try cursor.next() {
            if mark.time == Self.untimed { mark.time = time }
            try body(mark)
        }
    }
}
