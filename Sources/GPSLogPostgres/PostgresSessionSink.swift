// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// The PostgreSQL database as the end of the pipeline (`SessionSink`): what an import (`gpslog import --postgres`)
/// makes goes straight into gpslog's PostgreSQL tables, with the SQL `sync` uses for the same rows.
///
/// Sessions, entries (marks are entries), transitions and visits are kept; PostgreSQL's schema has no place for the
/// automatic pause's events, the fixes the gate refused, or how a trip stopped, so those are dropped. Each session's
/// track (its LineString) is drawn when the session ends. An import is one PostgreSQL transaction: all of the file,
/// or nothing.
///
/// Blocking, like `PostgresDatabase`: call it from a command's thread (or the import's writer thread), never from
/// Swift's cooperative pool. One user at a time.
public final class PostgresSessionSink: SessionSink {
    /// The connection written to.
    public let database: PostgresDatabase
    /// `sessions.origin` of the sessions made: "import " and the machine's name.
    public let origin: String
    /// True inside `importTransaction` or `writeJoiningTransaction`: a nested one joins it.
    private var inTransaction = false
    /// Keys handed out by `appendEntries`: PostgreSQL's entries are known by their UUID, so each batch's keys count on
    /// from `nextKey`, and the last batch's ids are kept to find a key's row (the pipeline updates only the last
    /// track point it stored: `setInstanceCount`).
    private var nextKey: Int64 = 1
    private var lastBatch: (firstKey: Int64, ids: [String]) = (1, [])

    /// How many entries `appendEntries` stored through this sink.
    public var entriesWritten: Int { Int(nextKey - 1) }

    /// Writes into `database`, whose schema is brought up to date first.
    public init(database: PostgresDatabase, origin: String) throws {
        self.database = database
        self.origin = origin
        try PostgresSchema.prepare(database)
    }

    // MARK: - Sessions

    /// Creates a session with no end yet, refusing (`StoreError.invalidSession`) an id that is not a UUID or is in
    /// the database already, and an empty name; the name is trimmed and cut to `TextLimit.sessionName`.
    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws
        -> Session
    {
        let id = (id ?? Identifier.uuidV4()).lowercased()
        guard Identifier.isUUID(id) else { throw StoreError.invalidSession(reason: "'\(id)' is not a UUID") }
        let name = (PostgresRows.text(name) ?? "").trimmedWhitespace.truncated(to: TextLimit.sessionName)
        guard !name.isEmpty else { throw StoreError.invalidSession(reason: "the name is empty") }
        guard try !hasSession(id: id) else {
            throw StoreError.invalidSession(reason: "a session with the id \(id) exists already")
        }
        let session = Session(key: 0, id: id, name: name, start: start, end: nil, mode: mode, isTrip: trip)
        try writeJoiningTransaction { _ = try PostgresRows.upsert(session, origin: origin, into: database) }
        return session
    }

    /// Whether PostgreSQL holds a session with this id (false for an id that is not a UUID).
    public func hasSession(id: String) throws -> Bool {
        guard Identifier.isUUID(id) else { return false }
        var b = PostgresBindings()
        b.append(id)
        return try !database.query("SELECT 1 FROM sessions WHERE id = $1::uuid", b, doing: "looking up a session")
            .isEmpty
    }

    /// Ends the session, and draws its track from its entries.
    public func finishSession(id: String, end: Timestamp) throws {
        var b = PostgresBindings()
        b.append(id)
        b.append(end.milliseconds)
        try writeJoiningTransaction {
            try database.execute(
                "UPDATE sessions SET end_time = gpslog_time($2), updated_at = now() WHERE id = $1::uuid", b,
                doing: "ending a session")
            try PostgresRows.rebuildTrack(id, in: database)
        }
    }

    /// Renames a session; an empty name (once trimmed) is refused with `StoreError.invalidSession`.
    public func renameSession(id: String, to name: String) throws {
        let name = (PostgresRows.text(name) ?? "").trimmedWhitespace.truncated(to: TextLimit.sessionName)
        guard !name.isEmpty else { throw StoreError.invalidSession(reason: "the new name is empty") }
        var b = PostgresBindings()
        b.append(id)
        b.append(name)
        try database.execute(
            "UPDATE sessions SET name = $2, updated_at = now() WHERE id = $1::uuid", b, doing: "renaming a session")
    }

    /// Moves the start of a session not finished yet (a finished one is left as it is).
    public func setSessionStart(id: String, start: Timestamp) throws {
        var b = PostgresBindings()
        b.append(id)
        b.append(start.milliseconds)
        try database.execute(
            "UPDATE sessions SET start_time = gpslog_time($2) WHERE id = $1::uuid AND end_time IS NULL", b,
            doing: "moving a session's start")
    }

    // MARK: - Entries

    /// Checks every entry against the store's rules first (a bad one stores none of the batch, and is named), then
    /// inserts them with sync's INSERT; an id PostgreSQL holds already is refused, not skipped.
    @discardableResult
    public func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        guard !entries.isEmpty else { return [] }
        for (index, e) in entries.enumerated() {
            let rule = Identifier.isUUID(e.id) ? Store.brokenRule(e) : "entry_id_is_uuid"
            if let rule {
                throw StoreError.invalidEntry(
                    index: index, time: e.time.iso8601(), reason: "it breaks the rule \(rule)")
            }
        }
        let stored = try writeJoiningTransaction {
            try PostgresRows.insert(entries, session: sessionID, received: false, into: database)
        }
        guard stored == entries.count else {
            throw StoreError.invalidEntry(
                index: 0, time: entries[0].time.iso8601(),
                reason: "\(entries.count - stored) of its entry ids are in the PostgreSQL database already")
        }
        lastBatch = (nextKey, entries.map(\.id))
        nextKey += Int64(entries.count)
        return (0..<Int64(entries.count)).map { lastBatch.firstKey + $0 }
    }

    /// True: the entry ids a file gives are kept, as the SQLite store keeps them.
    public var keepsFileEntryIDs: Bool { true }

    /// Whether no entry in PostgreSQL has this id yet (true for an id that is not a UUID: it cannot be taken).
    public func entryIDIsFree(_ id: String) throws -> Bool {
        guard Identifier.isUUID(id) else { return true }
        var b = PostgresBindings()
        b.append(id)
        return try database.query("SELECT 1 FROM entries WHERE id = $1::uuid", b, doing: "looking up an entry id")
            .isEmpty
    }

    /// Sets the count of a row of the last batch stored (the only rows the pipeline updates); other keys are
    /// ignored.
    public func setInstanceCount(entryKey: Int64, to count: Int) throws {
        let index = Int(entryKey - lastBatch.firstKey)
        guard lastBatch.ids.indices.contains(index) else { return }
        var b = PostgresBindings()
        b.append(lastBatch.ids[index])
        b.append(count)
        try database.execute(
            "UPDATE entries SET instance_count = $2 WHERE id = $1::uuid", b, doing: "counting a repeated place")
    }

    // MARK: - Visits and transitions

    /// Stores a visit once (`visit_once`: a visit held already gets this one's departure); returns its id in
    /// PostgreSQL.
    @discardableResult
    public func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64 {
        var b = PostgresBindings()
        b.append(sessionID)
        b.append(visit.arrival.milliseconds)
        b.append(visit.departure?.milliseconds)
        b.append(visit.latitude)
        b.append(visit.longitude)
        b.append(visit.horizontalAccuracy)
        b.append(PostgresRows.text(visit.address?.truncated(to: TextLimit.address)))
        b.append(PostgresRows.text(visit.name.flatMap(Store.placeName)))
        let rows = try database.query(
            """
            INSERT INTO visits (session_id, arrival, departure, latitude, longitude, horizontal_accuracy, address, name)
            VALUES ($1::uuid, gpslog_time($2), gpslog_time($3), $4, $5, $6, $7, $8)
            ON CONFLICT ON CONSTRAINT visit_once DO UPDATE SET departure = EXCLUDED.departure
            RETURNING id
            """, b, doing: "storing a visit")
        return try rows.first?.decode(Int64.self) ?? 0
    }

    /// Writes the departure and place of a stored visit (`visit.key`: its id in PostgreSQL); nothing without a key.
    public func setDeparture(of visit: Visit) throws {
        guard let key = visit.key else { return }
        var b = PostgresBindings()
        b.append(key)
        b.append(visit.departure?.milliseconds)
        b.append(visit.latitude)
        b.append(visit.longitude)
        b.append(visit.horizontalAccuracy)
        try database.execute(
            """
            UPDATE visits SET departure = gpslog_time($2), latitude = $3, longitude = $4, horizontal_accuracy = $5
            WHERE id = $1
            """, b, doing: "storing a visit's departure")
    }

    /// Stored once, as `sync` stores it (one PostgreSQL holds already is skipped). Returns 0: the pipeline never
    /// reads a transition back, so its key is not asked for.
    @discardableResult
    public func addTransition(_ transition: Transition, to sessionID: String) throws -> Int64 {
        _ = try PostgresEvents.insert(
            transition, session: sessionID, regionKnown: transition.regionIsKnown, into: database)
        return 0
    }

    // MARK: - Transactions

    /// Runs one file's import in one PostgreSQL transaction: all of it is kept, or none.
    public func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T {
        try writeJoiningTransaction(body)
    }

    /// Runs `body` inside the transaction already open (an import's), else in one of its own.
    public func writeJoiningTransaction<T>(_ body: () throws -> T) throws -> T {
        guard !inTransaction else { return try body() }
        inTransaction = true
        defer { inTransaction = false }
        return try database.transaction(doing: "storing an import", body)
    }
}

@available(*, unavailable)
extension PostgresSessionSink: Sendable {}
