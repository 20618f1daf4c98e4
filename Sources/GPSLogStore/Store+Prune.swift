// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// What `prune` removed (or, in a dry run, would remove).
public struct PruneReport: Sendable, Equatable {
    /// Sessions that ended before the cut, deleted whole, with their entry counts.
    public var deleted: [(session: Session, entries: Int)] = []
    /// Sessions that began before the cut and go on after it, with the entries they lost.
    public var trimmed: [(session: Session, entries: Int)] = []
    /// Sessions left alone because they are being recorded.
    public var spared: [Session] = []

    /// An empty report.
    public init() {}

    /// The entries removed in all, from deleted and trimmed sessions.
    public var entries: Int { (deleted + trimmed).map(\.entries).reduce(0, +) }

    /// Equal when the same sessions have the same counts (tuples are not `Equatable`).
    public static func == (a: PruneReport, b: PruneReport) -> Bool {
        a.deleted.map(\.session) == b.deleted.map(\.session) && a.deleted.map(\.entries) == b.deleted.map(\.entries)
            && a.trimmed.map(\.session) == b.trimmed.map(\.session)
            && a.trimmed.map(\.entries) == b.trimmed.map(\.entries) && a.spared == b.spared
    }
}

/// Space inside the database file after a cleaning.
public struct SpaceReport: Sendable, Equatable {
    /// Bytes given back to the file system.
    public var returned: Int64
    /// Bytes still free inside the file (pages SQLite reuses for new rows).
    public var free: Int64
    /// Whether the file gives space back by itself (`auto_vacuum = INCREMENTAL`, the default since gpslog made it
    /// so); false for an older file, which `gpslog check --vacuum` converts.
    public var incremental: Bool
}

extension Store {
    /// Deletes everything recorded before `cut`, in one transaction: sessions that ended before it whole, and the
    /// entries, visits, pauses and transitions before it from sessions that go on after it (each then starts at its
    /// first remaining entry, and its figures are counted again). Sessions whose keys are in `sparing` (being
    /// recorded) are left alone. With `dryRun`, counts in a read transaction and changes nothing.
    public func prune(before cut: Timestamp, sparing: Set<Int64> = [], dryRun: Bool = false) throws -> PruneReport {
        try sqlite {
            let body = { [self] () throws -> PruneReport in
                var report = PruneReport()
                let figures = try database.cachedStatement(
                    """
                    SELECT COUNT(*), COUNT(*) FILTER (WHERE TimeStamp < ?2), MAX(TimeStamp),
                           MIN(TimeStamp) FILTER (WHERE TimeStamp >= ?2)
                    FROM EntryRows WHERE SessionKey = ?1
                    """)
                for session in try sessions() where session.start < cut {
                    if sparing.contains(session.key) {
                        report.spared.append(session)
                        continue
                    }
                    try figures.bind([.integer(session.key), .integer(cut.milliseconds)])
                    _ = try figures.step()
                    let (all, before) = (Int(figures.requiredInt64(at: 0)), Int(figures.requiredInt64(at: 1)))
                    let last = max(session.end?.milliseconds ?? .min, figures.int64(at: 2) ?? .min)
                    let firstKept = figures.int64(at: 3)
                    figures.reset()
                    if session.end != nil && last < cut.milliseconds {
                        report.deleted.append((session, all))
                        if !dryRun { try database.run("DELETE FROM Sessions WHERE Key = ?", [.integer(session.key)]) }
                    } else if before > 0 {
                        report.trimmed.append((session, before))
                        if !dryRun { try trim(session, before: cut, firstKept: firstKept) }
                    }
                }
                return report
            }
            return dryRun ? try database.transaction(.deferred, body) : try database.transaction(.immediate, body)
        }
    }

    /// Removes what `session` holds before `cut` and moves its start to its first remaining entry.
    private func trim(_ session: Session, before cut: Timestamp, firstKept: Int64?) throws {
        let segmentStart = try database.scalar(
            """
            SELECT MAX(TimeStamp) FROM EntryRows WHERE SessionKey = ? AND TimeStamp < ?
            AND \(EntryExtras.select("StartsSegment")) = 1
            """,
            [.integer(session.key), .integer(cut.milliseconds)])?.int64
        try database.run(
            "DELETE FROM EntryRows WHERE SessionKey = ? AND TimeStamp < ?",
            [.integer(session.key), .integer(cut.milliseconds)])
        // The rows are gone already: this hands a deleted segment start on and forgets the emptied days.
        try deleteRows([], segmentStarts: segmentStart.map { [$0] } ?? [], sessionKey: session.key)
        for (table, column) in Store.timedRecords {
            try database.run(
                "DELETE FROM \(table) WHERE Session = ? AND \(column) < ?",
                [.text(session.id), .integer(cut.milliseconds)])
        }
        let start = min(firstKept ?? cut.milliseconds, session.end?.milliseconds ?? .max)
        try database.run(
            "UPDATE Sessions SET StartTime = MAX(StartTime, ?) WHERE Key = ?", [.integer(start), .integer(session.key)])
        try saveRecount(sessionKey: session.key)
        try historyChanged(sessionKey: session.key)
    }

    /// Gives the pages a cleaning freed back to the file system: `PRAGMA incremental_vacuum`, then a checkpoint that
    /// lets the file shrink (in WAL mode the file keeps its size until then). Neither is needed for correctness, so
    /// a busy database (a reader holding the WAL) only leaves the space for later.
    public func giveSpaceBack() throws -> SpaceReport {
        try sqlite {
            let pageSize = try database.scalar("PRAGMA page_size")?.int64 ?? 4096
            let incremental = try database.scalar("PRAGMA auto_vacuum")?.int64 == 2
            let freeBefore = try database.scalar("PRAGMA freelist_count")?.int64 ?? 0
            if incremental && freeBefore > 0 {
                do {
                    try database.execute("PRAGMA incremental_vacuum")
                    _ = try database.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
                } catch let error as SQLiteError where error.isBusy {
                    // Another connection writes or reads: the pages stay free inside the file for now.
                }
            }
            let freeAfter = try database.scalar("PRAGMA freelist_count")?.int64 ?? 0
            return SpaceReport(
                returned: (freeBefore - freeAfter) * pageSize, free: freeAfter * pageSize, incremental: incremental)
        }
    }

    /// Rewrites the file whole (`VACUUM`) with `auto_vacuum = INCREMENTAL`, so that later cleanings give their space
    /// back: for files made before gpslog set it. Needs free disk space as large as the file, and no other process
    /// using it.
    public func vacuumIntoIncremental() throws {
        try sqlite {
            try database.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try database.execute("VACUUM")
            _ = try? database.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
