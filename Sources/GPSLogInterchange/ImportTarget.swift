// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore

/// Where an importer puts what it reads: the user's `Store`, or a `TrackSpool` when converting.
public protocol ImportTarget: AnyObject {
    /// Creates a session (id: a UUID, random when nil).
    func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?) throws -> Session
    /// Whether a session with this id exists.
    func hasSession(id: String) throws -> Bool
    /// Appends entries to a session (inside the import's transaction).
    func appendEntries(_ entries: [Entry], to sessionID: String) throws
    /// Ends a session.
    func finishSession(id: String, end: Timestamp) throws
    /// Renames a session before it is finished (an import's first track, once a second shows it needs a number).
    func renameSession(id: String, to name: String) throws
    /// Runs one file's import: all of it is kept, or none. `expectedBytes` is the file's size, when known.
    func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T
    /// Whether track points need ids (false: the target writes none, so the importer need not make them).
    var keepsTrackPointIDs: Bool { get }
    /// Stores a visit of a session (Google's place visits).
    func importVisit(_ visit: Visit, to sessionID: String) throws
    /// Whether the target keeps the entry ids a file gives (the database does; a convert's spools make their own).
    var keepsFileEntryIDs: Bool { get }
    /// Whether an entry id a file gave can be kept: no entry has it yet (see `keepsFileEntryIDs`).
    func entryIDIsFree(_ id: String) throws -> Bool
    /// Stores a region transition of a session (read back from gpslog's GPX, GeoJSON and KML exports).
    func importTransition(_ transition: Transition, to sessionID: String) throws
    /// Moves the start of a session not finished yet to an earlier time (a file whose points are not in time order).
    func moveSessionStart(id: String, to start: Timestamp) throws
}

extension ImportTarget {
    public var keepsTrackPointIDs: Bool { true }
    /// Targets that keep no visits drop them (a convert's spools, which read GPX only).
    public func importVisit(_ visit: Visit, to sessionID: String) throws {}
    /// Targets other than the database make their own ids (a convert's spools, a dry run).
    public var keepsFileEntryIDs: Bool { false }
    public func entryIDIsFree(_ id: String) throws -> Bool { false }
    /// Targets that keep no transitions drop them (a convert's spools).
    public func importTransition(_ transition: Transition, to sessionID: String) throws {}
    /// Targets that read sessions back in file order keep the start they were made with (a convert's spools).
    public func moveSessionStart(id: String, to start: Timestamp) throws {}
}

extension Store: ImportTarget {
    public func hasSession(id: String) throws -> Bool { try session(id: id) != nil }
    public func appendEntries(_ entries: [Entry], to sessionID: String) throws {
        try appendInTransaction(entries, to: sessionID)
    }
    public func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T {
        try bulkWrite(expectedBytes: expectedBytes, body)
    }
    public func importVisit(_ visit: Visit, to sessionID: String) throws { try addVisit(visit, to: sessionID) }
    public func importTransition(_ transition: Transition, to sessionID: String) throws {
        _ = try addTransition(transition, to: sessionID)
    }
    public var keepsFileEntryIDs: Bool { true }
    public func entryIDIsFree(_ id: String) throws -> Bool { try entry(id: id) == nil }
    public func moveSessionStart(id: String, to start: Timestamp) throws { try setSessionStart(id: id, start: start) }
}
