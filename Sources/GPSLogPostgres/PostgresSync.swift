// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// What a sync pushed, or (`--dry-run`) would push.
public struct SyncReport: Sendable, Equatable, Encodable {
    /// The database, as its URL without the password.
    public var destination: String
    /// Sessions new in PostgreSQL, or changed (renamed, finished) since the last sync.
    public var sessions = 0
    /// Entries read from SQLite and sent (those PostgreSQL held already are counted in `alreadyThere`).
    public var entries = 0
    /// Entries sent that PostgreSQL held already (a batch sent again after a kill, a session read again from its
    /// start): kept once.
    public var alreadyThere = 0
    /// Transitions new in PostgreSQL.
    public var transitions = 0
    /// Visits new in PostgreSQL, or changed (a departure, a place, an address) since the last sync.
    public var visits = 0
    /// Transactions committed in PostgreSQL.
    public var batches = 0

    /// An empty report for `destination` (the URL without its password).
    public init(destination: String) { self.destination = destination }
}

/// Pushes a SQLite store's sessions, entries (marks among them), transitions and visits into PostgreSQL.
///
/// Incremental and safe to kill: each session has a cursor (time, key of the last entry pushed) kept in the SQLite
/// store as `upload` keeps its own (`Store.uploadProgress`, destination: the URL without its password). Entries go in
/// batches, one PostgreSQL transaction each; the cursor moves only after that COMMIT returned. Killed between the
/// two, the next run sends the batch again and `ON CONFLICT DO NOTHING` keeps one copy. Entries that arrive behind a
/// session's cursor (an earlier time) show as a count that does not match, and the session is read again from its
/// start (still idempotent). Deletions in SQLite are not pushed.
public final class PostgresSync {
    /// The SQLite store read from; it keeps the cursors.
    public let store: Store
    /// The PostgreSQL database pushed to.
    public let database: PostgresDatabase
    /// `sessions.origin` of the rows pushed: "sync " and the machine's name.
    public let origin: String
    /// Entries per PostgreSQL transaction.
    public var batchSize = 5000
    /// The cursor's name in the store.
    var destination: String { database.location.description }

    /// A sync from `store` to `database`; `origin` is written in `sessions.origin` ("sync " and the machine's name).
    public init(store: Store, database: PostgresDatabase, origin: String) {
        self.store = store
        self.database = database
        self.origin = origin
    }

    /// What a sync of `sessions` would send, from the cursors alone (nothing is written, PostgreSQL is not asked).
    public static func plan(_ sessions: [Session], store: Store, destination: String) throws -> [(Session, Int)] {
        try sessions.map { s in
            let total = try store.entryCount(of: s.id)
            let sent = try store.uploadProgress(session: s.id, destination: destination).sent
            return (s, total >= sent ? total - sent : total)
        }
    }

    /// Pushes `sessions`; `progress` gets (entries done, entries to do) after each batch.
    public func sync(_ sessions: [Session], progress: (Int, Int) -> Void = { _, _ in }) throws -> SyncReport {
        try PostgresSchema.prepare(database)
        var report = SyncReport(destination: destination)
        let total = try PostgresSync.plan(sessions, store: store, destination: destination).reduce(0) { $0 + $1.1 }
        var done = 0
        for session in sessions {
            try push(session, report: &report) { n in
                done += n
                progress(done, max(total, done))
            }
        }
        try database.analyzeAfterBulkWrite(entries: report.entries)
        return report
    }

    /// One session: its row, then its entries from the cursor on, then (when anything came) its track, transitions
    /// and visits.
    func push(_ session: Session, report: inout SyncReport, advanced: (Int) -> Void) throws {
        var progress = try store.uploadProgress(session: session.id, destination: destination)
        let row = try database.transaction(doing: "storing the session '\(session.name)'") {
            try PostgresRows.upsert(session, origin: origin, into: database)
        }
        if row.changed { report.sessions += 1 }
        let count = try store.entryCount(of: session.id)
        // Entries deleted in SQLite, or a PostgreSQL that lost the session: read it again from the start.
        if count < progress.sent || (row.inserted && progress.sent > 0) { progress = UploadProgress() }
        var pushed = try pushEntries(session, from: &progress, report: &report, advanced: advanced)
        if progress.sent < count {
            // Entries arrived behind the cursor (an earlier time): every entry again, the copies skipped.
            progress = UploadProgress()
            pushed += try pushEntries(session, from: &progress, report: &report, advanced: { _ in })
        }
        if pushed > 0 || row.trackOutdated || row.inserted {
            try database.transaction(doing: "drawing the track of '\(session.name)'") {
                try PostgresRows.rebuildTrack(session.id, in: database)
            }
        }
        try pushEvents(session, report: &report)
    }

    /// Sends the entries after `progress.last`, a batch per transaction, and moves the cursor after each commit.
    /// - Returns: how many were new in PostgreSQL.
    func pushEntries(
        _ session: Session, from progress: inout UploadProgress, report: inout SyncReport, advanced: (Int) -> Void
    ) throws -> Int {
        var inserted = 0
        while true {
            let batch = try nextBatch(of: session.id, after: progress.last)
            guard let last = batch.last, let key = last.key else { break }
            let new = try database.transaction(doing: "storing entries of '\(session.name)'") {
                let new = try PostgresRows.insert(batch, session: session.id, received: false, into: database)
                if new > 0 { try PostgresRows.markTrackOutdated(session.id, in: database) }
                return new
            }
            progress.last = (last.time.milliseconds, key)
            progress.sent += batch.count
            progress.batches += 1
            progress.sentAt = Timestamp(seconds: Date().timeIntervalSince1970)
            try store.saveUploadProgress(progress, session: session.id, destination: destination)
            inserted += new
            report.entries += new
            report.alreadyThere += batch.count - new
            report.batches += 1
            advanced(batch.count)
            if batch.count < batchSize { break }
        }
        return inserted
    }

    /// The next `batchSize` entries in (time, key) order after `after`.
    func nextBatch(of sessionID: String, after: (time: Int64, key: Int64)?) throws -> [Entry] {
        let cursor = try store.entries(of: sessionID, from: after.map { Timestamp(milliseconds: $0.time) })
        var batch: [Entry] = []
        batch.reserveCapacity(batchSize)
        while batch.count < batchSize, let e = try cursor.next() {
            if let after, e.time.milliseconds == after.time, let key = e.key, key <= after.key { continue }
            batch.append(e)
        }
        return batch
    }

    /// A session's transitions and visits, each stored once (a visit's departure filled in when it came later).
    func pushEvents(_ session: Session, report: inout SyncReport) throws {
        let transitions = try store.transitions(of: session.id)
        let visits = try store.visits(of: session.id)
        guard !transitions.isEmpty || !visits.isEmpty else { return }
        try database.transaction(doing: "storing transitions and visits of '\(session.name)'") {
            for t in transitions {
                report.transitions += try PostgresEvents.insert(
                    t, session: session.id, regionKnown: t.regionIsKnown, into: database)
            }
            for v in visits {
                report.visits += try PostgresEvents.upsert(v, session: session.id, replacing: true, into: database)
            }
        }
    }
}

@available(*, unavailable)
extension PostgresSync: Sendable {}
