// SPDX-License-Identifier: MIT

/// Where the pipeline ends: what keeps the sessions that the recorder, replay and every importer make.
///
/// The user's `Store` is one; a dry run (which counts), a convert's spool file and its GeoJSON stream (which write a
/// file) are others. It is declared in the model so that neither side knows the other: the pipeline writes to any
/// sink, and the Store keeps rows without knowing the stages before it.
///
/// Keys: a sink that keeps rows hands back one key per row (the pipeline updates a row it stored, as a repeated
/// place's count); one that keeps none hands back none.
public protocol SessionSink: AnyObject {
    /// Creates a session (id: a UUID, random when nil); `trip`: a trip inside a recording (`trip start`).
    func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws -> Session
    /// Whether a session with this id exists.
    func hasSession(id: String) throws -> Bool
    /// Appends rows to a session, inside the caller's transaction; returns their keys (none when it keeps no keys).
    @discardableResult
    func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64]
    /// Ends a session.
    func finishSession(id: String, end: Timestamp) throws
    /// Renames a session before it is finished (an import's first track, once a second shows it needs a number).
    func renameSession(id: String, to name: String) throws
    /// Moves the start of a session not finished yet to an earlier time (a file whose points are not in time order).
    func setSessionStart(id: String, start: Timestamp) throws
    /// Runs one file's import: all of it is kept, or none. `expectedBytes` is the file's size, when known.
    func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T
    /// Runs `body` inside the caller's transaction when one is open (an import), else in one of its own (a
    /// recording's commit).
    func writeJoiningTransaction<T>(_ body: () throws -> T) throws -> T

    /// Whether track points need ids (false: the sink writes none, so the importer need not make them).
    var keepsTrackPointIDs: Bool { get }
    /// Whether the sink keeps the entry ids a file gives (the database does; a convert's spools make their own).
    var keepsFileEntryIDs: Bool { get }
    /// Whether an entry id a file gave can be kept: no entry has it yet (see `keepsFileEntryIDs`).
    func entryIDIsFree(_ id: String) throws -> Bool
    /// The ids of `ids` that entries have already: a batch's ids asked at once (see `entryIDIsFree`).
    func takenEntryIDs(_ ids: [String]) throws -> Set<String>

    /// Sets the count of a stored location row that its place repeated (the sampler's same place).
    func setInstanceCount(entryKey: Int64, to count: Int) throws
    /// Stores a visit (an arrival, or a whole visit from a file); returns its key.
    @discardableResult
    func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64
    /// Writes the departure of a stored visit (`visit.key`).
    func setDeparture(of visit: Visit) throws
    /// Stores a pause or a resume of the automatic pause; returns its key.
    @discardableResult
    func addTrackingEvent(_ event: TrackingEvent, to sessionID: String) throws -> Int64
    /// Stores a region transition; returns its key.
    @discardableResult
    func addTransition(_ transition: Transition, to sessionID: String) throws -> Int64
    /// Keeps what the fix gate refused in a session.
    func setDroppedFixes(_ dropped: DroppedFixes, of sessionID: String) throws
    /// Says whether the automatic pause ended a trip.
    func setStoppedAutomatically(_ automatically: Bool, of sessionID: String) throws
}

extension SessionSink {
    /// A session that is not a trip.
    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?) throws -> Session {
        try createSession(name: name, start: start, mode: mode, id: id, trip: false)
    }

    /// Track points get ids unless a sink says otherwise.
    public var keepsTrackPointIDs: Bool { true }
    /// Sinks other than the database make their own ids (a convert's spools, a dry run).
    public var keepsFileEntryIDs: Bool { false }
    /// Never free: a sink that keeps no file ids makes its own.
    public func entryIDIsFree(_ id: String) throws -> Bool { false }
    /// One question per id; a sink that can answer a batch at once does.
    public func takenEntryIDs(_ ids: [String]) throws -> Set<String> {
        var taken = Set<String>()
        for id in ids where try !entryIDIsFree(id) { taken.insert(id) }
        return taken
    }
    /// A sink that keeps files, not one transaction, has nothing to join.
    public func writeJoiningTransaction<T>(_ body: () throws -> T) throws -> T { try body() }
    /// Sinks that read sessions back in file order keep the start they were made with (a convert's spools).
    public func setSessionStart(id: String, start: Timestamp) throws {}
    // Sinks that keep only the track (a convert's spools) drop the rest.
    /// Does nothing.
    public func setInstanceCount(entryKey: Int64, to count: Int) throws {}
    /// Drops the visit; returns 0, not a key.
    public func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64 { 0 }
    /// Does nothing.
    public func setDeparture(of visit: Visit) throws {}
    /// Drops the event; returns 0, not a key.
    public func addTrackingEvent(_ event: TrackingEvent, to sessionID: String) throws -> Int64 { 0 }
    /// Drops the transition; returns 0, not a key.
    public func addTransition(_ transition: Transition, to sessionID: String) throws -> Int64 { 0 }
    /// Does nothing.
    public func setDroppedFixes(_ dropped: DroppedFixes, of sessionID: String) throws {}
    /// Does nothing.
    public func setStoppedAutomatically(_ automatically: Bool, of sessionID: String) throws {}
}
