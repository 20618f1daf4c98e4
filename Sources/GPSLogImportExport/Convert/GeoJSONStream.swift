// SPDX-License-Identifier: MIT
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// `convert` from GPX to GeoJSON as one stream: the importer's rows are formatted as GeoJSON while the file is
/// parsed (the track's coordinates and times on the import's second thread, see `PipelinedSink`; each
/// session's features are put together when its import finishes it), with no spool to write and read back.
/// GeoJSON reads each track once in time order, so a track that arrives in time order can be written as it comes;
/// `GeoJSONDocument` and `GeoJSONTrack` write it, the same code `export` uses, so the bytes are the same.
///
/// A track out of time order throws `NeedsSorting` before anything reaches the destination: the caller then takes
/// the path that sorts. A file destination is written to its temporary file and renamed only by `finish()`;
/// for standard output the document is set aside in a scratch file until then. Each session's features are
/// written when its import finishes it, so only the session being read is held: its track, and its marks as
/// features (they come after its track points and go after its track), each spilling to disk past 1 MB. Marks out
/// of time order throw `NeedsSorting` too.
public final class GeoJSONStream: SessionSink {
    /// A track is not in time order: convert through a store that sorts instead.
    public struct NeedsSorting: Error {}

    private struct Pending {
        var session: Session
        var track = GeoJSONTrack()
        var marks = ScratchFile()
        var markCount = 0
        var lastTrackTime: Timestamp?
        var lastMarkTime: Timestamp?
    }

    private let output: OutputFile?
    private let scratch: ScratchFile?
    private var document: GeoJSONDocument
    private var pending: [String: Pending] = [:]
    private var taken: [String: Int] = [:]
    private var nextKey: Int64 = 1
    /// Called with the number of entries of each appended batch (progress bars).
    public var onAppend: ((Int) -> Void)?

    /// Opens the destination (`-`: standard output) and starts the document.
    public init(path: String) throws {
        if path == "-" {
            output = nil
            scratch = ScratchFile()
            document = GeoJSONDocument(scratch!)
        } else {
            output = try OutputFile(path: path)
            scratch = nil
            document = GeoJSONDocument(output!)
        }
        try document.begin()
    }

    /// Checks the session as the store would (a free UUID, lower-cased; a name) and holds it until it is finished.
    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws
        -> Session
    {
        let session = try TrackSpool.newSession(
            name: name, start: start, mode: mode, id: id, key: taken.count + 1, taken: taken)
        taken[session.id] = taken.count
        pending[session.id] = Pending(session: session)
        return session
    }

    /// Whether this stream made a session with this id.
    public func hasSession(id: String) throws -> Bool { taken[id] != nil }

    /// Adds the rows to the session's track, or to its marks, set aside until the track is written (heading changes
    /// are left out); throws `NeedsSorting` at a row out of time order. Returns no keys.
    @discardableResult
    public func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        guard var p = pending.removeValue(forKey: sessionID) else {
            throw StoreError.invalidSession(reason: "no session \(sessionID)")
        }
        defer { pending[sessionID] = p }
        for (index, var e) in entries.enumerated() {
            try TrackSpool.checkPosition(e, index: index)
            e.key = nextKey
            nextKey += 1
            if e.marked {
                if let last = p.lastMarkTime, e.time < last { throw NeedsSorting() }
                p.lastMarkTime = e.time
                let first = p.markCount == 0
                try p.marks.append { b in
                    if !first { b.append(contentsOf: GeoJSONDocument.featureSeparator.utf8) }
                    GeoJSONDocument.appendMark(e, of: p.session, to: &b)
                }
                p.markCount += 1
                continue
            }
            if let last = p.lastTrackTime, e.time < last { throw NeedsSorting() }
            p.lastTrackTime = e.time
            if !e.isHeadingChanged { try p.track.add(e) }
        }
        onAppend?(entries.count)
        return []
    }

    /// Ends a session and writes its features (the importer finishes sessions in the order it returns them).
    public func finishSession(id: String, end: Timestamp) throws {
        guard var p = pending.removeValue(forKey: id) else { return }
        p.session.end = end
        try document.addTrack(p.session, p.track)
        if p.markCount > 0 { try document.addFeatures(p.marks) }
    }

    /// Renames a session not written yet; any other id is ignored.
    public func renameSession(id: String, to name: String) throws { pending[id]?.session.name = name }

    /// A region transition (gpslog's GPX export) comes after its session was written: the store places it (the
    /// destination is not written yet, so the caller can take the other path as for a track out of order).
    @discardableResult
    public func addTransition(_ transition: Transition, to sessionID: String) throws -> Int64 { throw NeedsSorting() }

    /// GeoJSON names marks by id, not track points.
    public var keepsTrackPointIDs: Bool { false }

    /// Nothing to roll back: a failed convert leaves no destination behind.
    public func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T { try body() }

    /// Ends the document and puts it in place.
    public func finish() throws {
        try document.end()
        if let scratch {
            let stdout = try OutputFile(path: "-")
            try scratch.copy(to: stdout)
            try stdout.commit()
        } else {
            try output!.commit()
        }
    }
}
