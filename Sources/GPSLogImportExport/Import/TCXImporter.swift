// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports TCX (Garmin Training Center v2, read by `TCXReader`, streaming): each `Activity` and `Course` becomes a
/// session (named as `SessionSequence` says: a course after its `Name`, an activity after the file, numbered when
/// there are several; all in one with `merge`), each `Track` in it a segment, its `Sport` the trip mode; a course's
/// `CoursePoint`s become its marks. One transaction per file; memory stays flat (`PointSessions`).
public struct TCXImporter: TrackFileImporter {
    /// Names, `merge`, and where notes go.
    public var options = TrackImportOptions()

    /// An importer with `options` (by default: names from the file, no merge).
    public init(options: TrackImportOptions = TrackImportOptions()) { self.options = options }

    /// Imports into any target (a convert's spool, a dry run).
    public func importFile(_ path: String, into store: any SessionSink) throws -> [ImportResult] {
        try FileImport.run(path, store: store) {
            let sessions = TCXSessions(path: path, options: options, store: store)
            try TCXReader.read(path, into: sessions)
            return try sessions.finish()
        }
    }
}

/// What the TCX reader reports, made into sessions by `PointSessions` (behind a pointer, as `KMLSessions`).
final class TCXSessions: TCXVisitor {
    private let sessions: UnsafeMutablePointer<PointSessions>
    private let options: TrackImportOptions

    init(path: String, options: TrackImportOptions, store: any SessionSink) {
        self.options = options
        sessions = .allocate(capacity: 1)
        sessions.initialize(to: PointSessions(path: path, options: options, store: store))
    }

    deinit {
        sessions.deinitialize(count: 1)
        sessions.deallocate()
    }

    private static func key(_ activity: TCXActivity) -> String { "activity \(activity.index)" }

    func trackPoint(_ point: inout Entry, hasTime: Bool, activity: TCXActivity, track: Int) throws {
        let group = PointSessions.Group(key: Self.key(activity), name: activity.name, mode: activity.mode)
        try sessions.pointee.track(point, hasTime: hasTime, group: group, segment: String(track))
    }

    func mark(_ point: inout Entry, hasTime: Bool, activity: TCXActivity) throws {
        try sessions.pointee.mark(point, hasTime: hasTime, key: Self.key(activity))
    }

    func note(_ text: String) { options.notes(text) }

    /// After the document: the sessions imported.
    func finish() throws -> [ImportResult] {
        let results = try sessions.pointee.finish()
        guard !results.isEmpty else {
            throw ImportError.noFixes(
                file: sessions.pointee.path, detail: "no Trackpoint with a Position in any Activity or Course")
        }
        return results
    }
}
