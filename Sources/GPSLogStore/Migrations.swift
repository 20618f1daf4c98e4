// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite

/// The schema migrations, embedded at build time from `Schema/NNN_name.sql` (the single source of truth) and
/// applied in order; `PRAGMA user_version` records the last one applied.
public enum Migrations {
    /// One numbered migration script.
    public struct Script: Sendable {
        /// Its number, the file name's leading digits (the scripts are numbered 1...n).
        public let version: Int
        /// The file's name, `NNN_name.sql`, for errors.
        public let fileName: String
        /// The script's SQL, run in one transaction.
        public let sql: String
    }

    /// All migrations, in version order.
    public static let all: [Script] = {
        let scripts = EmbeddedResources.files.compactMap { file -> Script? in
            guard file.name.hasSuffix(".sql"), let number = Int(file.name.prefix { $0.isNumber }) else { return nil }
            return Script(version: number, fileName: file.name, sql: file.contents)
        }.sorted { $0.version < $1.version }
        // Numbered 1...n, each once: two scripts of one number (two branches that numbered alike) would leave which
        // one ran to chance, and a gap would be skipped for good by a database migrated past it (`user_version`
        // only counts up).
        precondition(
            scripts.enumerated().allSatisfy { $0.element.version == $0.offset + 1 },
            "Schema/ migrations are not numbered 1...n, each once")
        return scripts
    }()

    /// The schema version this build creates.
    public static var latestVersion: Int { all.last?.version ?? 0 }

    /// The version whose script moves the entries into compact rows (`020_compact_rows.sql`).
    static let compactRowsVersion = 20

    /// The version whose script copies the entries into lean rows (`021_lean_rows.sql`): the last that copies every
    /// entry.
    static let leanRowsVersion = 21

    /// Brings the database up to `target` (default: the latest), one transaction per script.
    ///
    /// Each script runs inside BEGIN IMMEDIATE after re-reading `user_version`, so two processes opening a new
    /// file at once do not both apply the same script.
    /// - Parameters:
    ///   - db: the open connection.
    ///   - target: the schema version to stop at.
    ///   - onUpgrade: told how the copy of the entries into compact rows goes (a script that takes minutes on tens
    ///     of millions of entries).
    /// - Throws: `StoreError.schemaTooNew` for a file of a newer gpslog; `StoreError.migrationFailed` naming the
    ///   script that failed (nothing of it applied); `SQLiteError` when `user_version` cannot be read.
    public static func migrate(
        _ db: Database, upTo target: Int = latestVersion, onUpgrade: ((UpgradeProgress) -> Void)? = nil
    ) throws {
        let current = try db.userVersion()
        if current > latestVersion {
            throw StoreError.schemaTooNew(path: db.path, found: current, supported: latestVersion)
        }
        for script in all where script.version > current && script.version <= target {
            do {
                let copied =
                    switch script.version {
                    case compactRowsVersion: try registerEntryIDFunction(db, onUpgrade)
                    case leanRowsVersion: try registerExtrasFunction(db, onUpgrade)
                    default: CopyCount?.none
                    }
                try db.transaction(.immediate) {
                    guard try db.userVersion() < script.version else { return }
                    try db.execute(script.sql)
                    try db.setUserVersion(script.version)
                }
                try db.execute("PRAGMA ignore_check_constraints = OFF")
                if let copied {
                    onUpgrade?(UpgradeProgress(step: copied.step, done: copied.rows, total: copied.rows))
                }
            } catch let error as SQLiteError {
                // A script may switch CHECKs off for a copy; they are on again, whatever happened.
                try? db.execute("PRAGMA ignore_check_constraints = OFF")
                throw StoreError.migrationFailed(
                    path: db.path, version: script.version, file: script.fileName, reason: error.message)
            }
        }
    }

    /// What `onUpgrade` is told the copy into compact rows is doing.
    static let copyStep = "Compacting entries"

    /// What `onUpgrade` is told the copy into lean rows is doing.
    static let leanCopyStep = "Moving rare columns"

    /// The rows a copy of every entry has made, and its step's name.
    final class CopyCount {
        var rows = 0
        let step: String
        let total: Int
        let onUpgrade: ((UpgradeProgress) -> Void)?

        init(step: String, total: Int, onUpgrade: ((UpgradeProgress) -> Void)?) {
            self.step = step
            self.total = total
            self.onUpgrade = onUpgrade
        }

        /// One more row; tells `onUpgrade` every 16,384 rows.
        func count() {
            rows += 1
            if rows % 16_384 == 0 { onUpgrade?(UpgradeProgress(step: step, done: rows, total: max(total, rows))) }
        }
    }

    /// `gpslog_entry_id(EntryID, TimeStamp)`: an id's stored form in EntryRows (`StoredEntryID`), for the copy in
    /// `020_compact_rows.sql`, which it counts for `onUpgrade` (out of about as many rows as the largest key).
    static func registerEntryIDFunction(_ db: Database, _ onUpgrade: ((UpgradeProgress) -> Void)?) throws -> CopyCount {
        let total = Int((try? db.scalar("SELECT MAX(Key) FROM Entries")?.int64) ?? 0)
        let count = CopyCount(step: copyStep, total: total, onUpgrade: onUpgrade)
        try db.createFunction("gpslog_entry_id", arity: 2, deterministic: false) { arguments in
            count.count()
            guard case .text(let id) = arguments[0], let time = arguments[1].int64 else { return arguments[0] }
            return StoredEntryID(id, time: time).value
        }
        return count
    }

    /// `gpslog_entry_extras(Heading, ..., IsPOI)` (the 16 columns of `EntryExtras.columns`): a row's Extras as the
    /// Store writes it, for the copy in `021_lean_rows.sql`, which it counts for `onUpgrade`.
    static func registerExtrasFunction(_ db: Database, _ onUpgrade: ((UpgradeProgress) -> Void)?) throws -> CopyCount {
        let total = Int((try? db.scalar("SELECT MAX(Key) FROM EntryRows")?.int64) ?? 0)
        let count = CopyCount(step: leanCopyStep, total: total, onUpgrade: onUpgrade)
        try db.createFunction("gpslog_entry_extras", arity: Int32(EntryExtras.columns.count), deterministic: false) {
            arguments in
            count.count()
            return SQLiteValue(EntryExtras.json(ofColumns: arguments))
        }
        return count
    }
}
