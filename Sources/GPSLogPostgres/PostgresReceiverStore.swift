// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import Logging
import PostgresNIO

/// What `gpslog serve --store postgres://` writes through: the receiver's store protocols over PostgreSQL, with the
/// rules of the SQLite store. Entries are checked (`Store.brokenRule`) before anything is written; a payload is one
/// transaction, so the receiver answers only after its COMMIT; a location whose device's session holds one at the
/// same time and place is skipped by the unique index `entries_received_once`, which also holds when two serve
/// processes store the same payload at once (the second waits for the first's COMMIT, then skips).
///
/// Blocking, on the receiver's store thread (see `PostgresDatabase`): one connection per serve process.
public final class PostgresReceiverStore: ReceivedMessageStore {
    /// The connection; a new one after the server went away (see `transaction`).
    public private(set) var database: PostgresDatabase
    private let logger: Logger?

    /// Connects and brings the schema up to date.
    public init(_ location: PostgresLocation, logger: Logger? = nil) throws {
        self.logger = logger
        database = try PostgresDatabase(location, logger: logger)
        do {
            try PostgresSchema.prepare(database)
        } catch {
            database.close()
            throw error
        }
    }

    /// Closes the connection.
    public func close() { database.close() }

    /// One payload's transaction on a connection that works. A connection found broken (the server restarted, a
    /// failover) is opened again and the payload tried once more: safe, a payload stored twice is stored once. A
    /// server still away fails the payload (the receiver answers 503: send it again later), and the next one tries.
    func transaction<T>(doing: String, _ body: () throws -> T) throws -> T {
        if database.isBroken { try reconnect() }
        do {
            return try database.transaction(doing: doing, body)
        } catch {
            guard database.isBroken else { throw error }
            try reconnect()
            return try database.transaction(doing: doing, body)
        }
    }

    private func reconnect() throws {
        database.close()
        database = try PostgresDatabase(database.location, logger: logger)
    }

    // MARK: - Locations

    /// Every batch in one transaction (tried once more on a new connection when the old one broke); the outcome's
    /// `session` is the last batch's. A bad location stores nothing of the payload (`StoreError.invalidEntry`).
    public func storeReceived(_ batches: [ReceivedBatch]) throws -> ReceivedOutcome {
        // Checked whole before the transaction: a payload with one bad location stores nothing (as SQLite's CHECKs).
        let prepared = try batches.map { batch in (batch, try PostgresReceiverStore.fresh(batch.entries)) }
        return try transaction(doing: "storing a payload") {
            var outcome = ReceivedOutcome()
            for (batch, fresh) in prepared {
                let one = try store(batch, fresh: fresh)
                outcome = ReceivedOutcome(
                    session: one.session, stored: outcome.stored + one.stored,
                    duplicates: outcome.duplicates + one.duplicates)
            }
            return outcome
        }
    }

    /// A batch's locations to store (`ReceiverRules.freshLocations`; those the session holds already are skipped by
    /// the unique index), each checked against the store's rules.
    static func fresh(_ entries: [Entry]) throws -> [Entry] {
        let fresh = ReceiverRules.freshLocations(entries) { _ in false }
        for (index, e) in fresh.enumerated() {
            if let rule = Store.brokenRule(e) {
                throw StoreError.invalidEntry(
                    index: index, time: e.time.iso8601(),
                    reason: "it breaks the rule \(rule) (CHECK constraint failed: \(rule))")
            }
        }
        return fresh
    }

    /// One batch, inside the payload's transaction.
    private func store(_ batch: ReceivedBatch, fresh: [Entry]) throws -> ReceivedOutcome {
        let key = ReceiverRules.sessionKey(batch.receiver)
        let session = try receiverSession(key, name: batch.name, start: batch.start, mode: batch.mode)
        let stored = try PostgresRows.insertReturningTrackTimes(fresh, session: session.id, into: database)
        if !batch.entries.isEmpty { try fitSessionToEntries(session.id) }
        if let earliest = stored.trackTimes.min() {
            try PostgresRows.extendTrack(session.id, earliestNew: earliest, in: database)
        }
        for visit in batch.visits {
            _ = try PostgresEvents.upsert(visit, session: session.id, replacing: false, into: database)
        }
        return ReceivedOutcome(
            session: session.name, stored: stored.count, duplicates: batch.entries.count - stored.count)
    }

    /// The session of `receiver` (a device, or a device's trip), created when missing: read first (a device's every
    /// payload but its first). Two processes creating it at once: the second insert meets `sessions_by_receiver`,
    /// waits for the first's COMMIT and does nothing; the SELECT after it (a statement of its own, so a snapshot that
    /// sees that COMMIT) reads the first one's row.
    func receiverSession(_ receiver: String, name: String, start: Timestamp, mode: TripMode?) throws -> (
        id: String, name: String
    ) {
        var key = PostgresBindings()
        key.append(receiver)
        let find = "SELECT id::text, name FROM sessions WHERE receiver = $1 AND origin = 'serve'"
        var rows = try database.query(find, key, doing: "reading the session of a device")
        if rows.isEmpty {
            var b = PostgresBindings()
            b.append(Identifier.uuidV4())
            b.append(ReceiverRules.newSessionName(name, receiver: receiver))
            b.append(start.milliseconds)
            b.append(mode?.rawValue)
            b.append(receiver)
            rows = try database.query(
                """
                INSERT INTO sessions (id, name, start_time, mode, receiver, origin)
                VALUES ($1::uuid, $2, gpslog_time($3), $4, $5, 'serve')
                ON CONFLICT (receiver) WHERE origin = 'serve' DO NOTHING
                RETURNING id::text, name
                """, b, doing: "creating the session of a device")
        }
        if rows.isEmpty { rows = try database.query(find, key, doing: "reading the session of a device") }
        guard let row = rows.first else {
            throw PostgresError.server(
                database: database.location.description, doing: "creating the session of a device",
                message: "the session of \(receiver.visible) was neither created nor found", code: "?")
        }
        let (id, sessionName) = try row.decode((String, String).self)
        return (id, sessionName)
    }

    /// Widens a received session's span to cover its entries, as the SQLite store does.
    private func fitSessionToEntries(_ sessionID: String) throws {
        var b = PostgresBindings()
        b.append(sessionID)
        try database.execute(
            """
            UPDATE sessions SET start_time = LEAST(start_time, e.first), end_time = e.last, updated_at = now()
            FROM (SELECT min(time) AS first, max(time) AS last FROM entries WHERE session_id = $1::uuid) e
            WHERE id = $1::uuid
            """, b, doing: "widening the session of a device")
    }
}

@available(*, unavailable)
extension PostgresReceiverStore: Sendable {}
