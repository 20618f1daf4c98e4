// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// One device's locations from one payload, bound for the session of `receiver`.
public struct ReceivedBatch: Sendable {
    /// Who the session belongs to: `overland:DEVICE` (with ` trip START` per Overland trip), `owntracks:USER/DEVICE`.
    public var receiver: String
    /// The session's name when it has to be created.
    public var name: String
    /// The session's start when it has to be created (the trip's start, or the first location).
    public var start: Timestamp
    /// The session's trip mode when it has to be created; nil: none.
    public var mode: TripMode?
    /// The locations, in any order, with or without ids (missing ids are made from the location's time).
    public var entries: [Entry]
    /// Overland's visit records: an arrival (no departure), then the same visit with its departure.
    public var visits: [Visit] = []
    /// Whether the outcome names each location's row (`ReceivedOutcome.rows`): Dawarich's answer does. Off by
    /// default: it costs a lookup per location.
    public var namesRows = false

    /// Creates a batch without visits (set `visits` to add them).
    public init(receiver: String, name: String, start: Timestamp, mode: TripMode?, entries: [Entry]) {
        self.receiver = receiver
        self.name = name
        self.start = start
        self.mode = mode
        self.entries = entries
    }
}

/// What storing received batches did.
public struct ReceivedOutcome: Sendable, Equatable {
    /// The name of the (last) session written to.
    public var session: String
    /// Locations stored (new to their session).
    public var stored: Int
    /// Locations skipped because their session already held one at the same time and place (a resent payload).
    public var duplicates: Int
    /// For the batches that ask (`ReceivedBatch.namesRows`), each location's row key, in their order: the new row,
    /// or the one already there at that time and place; nil where a backend has no such keys (PostgreSQL's are
    /// UUIDs).
    public var rows: [Int64?] = []

    /// Creates an outcome from its parts (nothing stored by default).
    public init(session: String = "", stored: Int = 0, duplicates: Int = 0) {
        self.session = session
        self.stored = stored
        self.duplicates = duplicates
    }
}

/// The part of a store that `gpslog serve` writes through: what a second backend (PostgreSQL) implements to take
/// locations from phones. All batches of one call are one transaction: a payload is stored whole or not at all.
public protocol ReceivedLocationStore: AnyObject {
    /// Stores each batch in its receiver's session (created when missing), skipping a location whose session already
    /// holds one at the same time and place, and widens each session to cover its entries.
    func storeReceived(_ batches: [ReceivedBatch]) throws -> ReceivedOutcome
}

extension Store: ReceivedLocationStore {
    /// One write transaction for every batch; the outcome's `session` is the last batch's.
    public func storeReceived(_ batches: [ReceivedBatch]) throws -> ReceivedOutcome {
        try write {
            var outcome = ReceivedOutcome()
            for batch in batches {
                let one = try storeReceived(batch)
                outcome = ReceivedOutcome(
                    session: one.session, stored: outcome.stored + one.stored,
                    duplicates: outcome.duplicates + one.duplicates)
                outcome.rows += one.rows
            }
            return outcome
        }
    }

    /// Inside the transaction.
    private func storeReceived(_ batch: ReceivedBatch) throws -> ReceivedOutcome {
        let key = ReceiverRules.sessionKey(batch.receiver)
        let session = try receiverSession(key, name: batch.name, start: batch.start, mode: batch.mode)
        let fresh = try ReceiverRules.freshLocations(batch.entries) { try hasEntry(session: session.id, at: $0) }
        _ = try appendInTransaction(fresh, to: session.id)
        if !batch.entries.isEmpty { try fitSessionToEntries(session.id) }
        for visit in batch.visits { try storeReceivedVisit(visit, session: session.id) }
        var outcome = ReceivedOutcome(
            session: session.name, stored: fresh.count, duplicates: batch.entries.count - fresh.count)
        if batch.namesRows { outcome.rows = try batch.entries.map { try rowKey(session: session.key, of: $0) } }
        return outcome
    }

    /// The key of the session's row at the entry's time and place (the one stored, or the one already there).
    func rowKey(session: Int64, of e: Entry) throws -> Int64? {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT Key FROM EntryRows WHERE SessionKey = ? AND TimeStamp = ? AND Latitude = ? AND Longitude = ? LIMIT 1"
            )
            defer { s.reset() }
            try s.bind([.integer(session), .integer(e.time.milliseconds), .real(e.latitude), .real(e.longitude)])
            return try s.step() ? s.requiredInt64(at: 0) : nil
        }
    }

    /// The session that belongs to `receiver` (a device, or a device's trip), created when missing.
    func receiverSession(_ receiver: String, name: String, start: Timestamp, mode: TripMode?) throws -> Session {
        try sqlite {
            let s = try database.cachedStatement("SELECT \(Store.sessionColumns) FROM Sessions WHERE Receiver = ?")
            defer { s.reset() }
            try s.bind(receiver, at: 1)
            if try s.step() { return Store.readSession(s) }
            s.reset()
            let session = try createSession(
                name: ReceiverRules.newSessionName(name, receiver: receiver), start: start, mode: mode)
            try database.run("UPDATE Sessions SET Receiver = ? WHERE ID = ?", [.text(receiver), .text(session.id)])
            return session
        }
    }

    /// Stores a received visit: a new row at its arrival, or the departure of the row with the same arrival (the
    /// second record of a visit; a record sent twice changes nothing).
    func storeReceivedVisit(_ visit: Visit, session: String) throws {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT Key, DepartureTime, Name FROM Visits WHERE Session = ? AND ArrivalTime = ?")
            defer { s.reset() }
            try s.bind([.text(session), .integer(visit.arrival.milliseconds)])
            let kept =
                try s.step()
                ? (
                    key: s.requiredInt64(at: 0), departure: s.int64(at: 1).map(Timestamp.init(milliseconds:)),
                    name: s.string(at: 2)
                ) : nil
            s.reset()
            switch ReceiverRules.visitWrite(visit, kept: kept.map { ($0.departure, $0.name) }) {
            case .add:
                try addVisit(visit, to: session)
            case .fill(let departure, let name):
                try database.run(
                    "UPDATE Visits SET DepartureTime = coalesce(DepartureTime, ?), Name = coalesce(Name, ?) WHERE Key = ?",
                    [SQLiteValue(departure?.milliseconds), SQLiteValue(name), .integer(kept!.key)])
            case .unchanged:
                break
            }
        }
    }

    /// Whether the session already holds a location at the same time and place (a payload sent twice).
    func hasEntry(session: String, at place: ReceivedPlace) throws -> Bool {
        try sqlite {
            try database.scalar(
                """
                SELECT EXISTS (SELECT 1 FROM EntryRows
                    WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?) AND TimeStamp = ?
                        AND Latitude = ? AND Longitude = ?)
                """,
                [.text(session), .integer(place.time), .real(place.latitude), .real(place.longitude)])?.int64 == 1
        }
    }

    /// Widens a received session's span to cover its entries: it starts at its first and ends at its last.
    func fitSessionToEntries(_ sessionID: String) throws {
        try sqlite {
            try database.run(
                """
                UPDATE Sessions SET
                    StartTime = MIN(StartTime, (SELECT MIN(TimeStamp) FROM EntryRows WHERE SessionKey = Sessions.Key)),
                    EndTime = (SELECT MAX(TimeStamp) FROM EntryRows WHERE SessionKey = Sessions.Key)
                WHERE ID = ?1
                """, [.text(sessionID)])
        }
    }
}
