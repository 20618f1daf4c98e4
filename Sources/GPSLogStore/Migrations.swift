// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite

/// The schema migrations, embedded at build time from `Schema/NNN_name.sql` (the single source of truth) and
/// applied in order; `PRAGMA user_version` records the last one applied.
public enum Migrations {
    /// One numbered migration script.
    public struct Script: Sendable {
        public let version: Int
        public let fileName: String
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

    /// Brings the database up to `target` (default: the latest), one transaction per script.
    ///
    /// Each script runs inside BEGIN IMMEDIATE after re-reading `user_version`, so two processes opening a new
    /// file at once do not both apply the same script.
    public static func migrate(_ db: Database, upTo target: Int = latestVersion) throws {
        let current = try db.userVersion()
        if current > latestVersion {
            throw StoreError.schemaTooNew(path: db.path, found: current, supported: latestVersion)
        }
        for script in all where script.version > current && script.version <= target {
            do {
                try db.transaction(.immediate) {
                    guard try db.userVersion() < script.version else { return }
                    try db.execute(script.sql)
                    try db.setUserVersion(script.version)
                }
            } catch let error as SQLiteError {
                throw StoreError.migrationFailed(
                    path: db.path, version: script.version, file: script.fileName, reason: error.message)
            }
        }
    }
}
