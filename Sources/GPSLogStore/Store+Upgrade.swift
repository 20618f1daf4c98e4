// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Where the long work of opening a database made by an older gpslog stands (see `Store.init`'s `onUpgrade`).
public struct UpgradeProgress: Sendable, Equatable {
    /// What is being done, in a few words ("Counting sessions").
    public var step: String
    /// Entries or rows done (0, then 1, for the file's final compaction), of about `total`.
    public var done: Int
    /// About how many there are in all (an estimate, never below `done`).
    public var total: Int
}

extension Store {
    /// Runs the migration scripts, and what a database made before some of them needs besides.
    ///
    /// Moving the entries into compact rows (`020_compact_rows.sql`), then into lean rows (`021_lean_rows.sql`), copies
    /// every row: alone on the database it goes
    /// through a rollback journal, as a large import does (the copied pages are written once, not to the WAL and
    /// again by its checkpoint), and it ends with a VACUUM, which gives the space the old table took back to the
    /// file system. A VACUUM that cannot run (another process reads the database, the disk is full) is left out: the
    /// free pages are used again by later writes.
    func migrateAndUpgrade(from version: Int, onUpgrade: ((UpgradeProgress) -> Void)?) throws {
        let compacting = version > 0 && version < Migrations.leanRowsVersion
        let rollbackJournal = compacting && enterRollbackJournal()
        // Space freed by `delete`, `prune` and `merge` goes back to the file system (Store+Prune.swift): a new file
        // has it from Store.init; an older one gets it at the compaction's VACUUM, or from `check --vacuum`.
        if compacting { try sqlite { try database.execute("PRAGMA auto_vacuum = INCREMENTAL") } }
        do {
            try Migrations.migrate(database, onUpgrade: onUpgrade)
        } catch {
            if rollbackJournal { leaveRollbackJournal() }
            throw error
        }
        if rollbackJournal { leaveRollbackJournal() }
        try countSessions(from: version, onUpgrade: onUpgrade)
        if compacting {
            onUpgrade?(UpgradeProgress(step: "Compacting the file", done: 0, total: 1))
            try? database.execute("VACUUM")
            onUpgrade?(UpgradeProgress(step: "Compacting the file", done: 1, total: 1))
        }
    }

    /// The figures of the sessions an upgrade left without (all of them, from before version 19; sessions the
    /// compaction recovered for entries without one), counted once now rather than at the first `sessions` (which
    /// would take as long as it took before they were kept).
    func countSessions(from version: Int, onUpgrade: ((UpgradeProgress) -> Void)?) throws {
        guard version > 0 && version < Migrations.latestVersion else { return }
        try sqlite {
            // About as many entries as the largest key: a total for the bar without reading every row.
            let total = Int(try database.scalar("SELECT MAX(Key) FROM EntryRows")?.int64 ?? 0)
            var done = 0
            for session in try sessions() where try keptSummary(sessionKey: session.key) == nil {
                done += try summaryFigures(of: session).entryCount
                onUpgrade?(UpgradeProgress(step: "Counting sessions", done: done, total: max(total, done)))
            }
        }
    }
}
