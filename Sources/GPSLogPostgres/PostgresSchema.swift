// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem
import PostgresNIO

/// gpslog's PostgreSQL schema: the scripts of `Schema/postgres/NNN_name.sql`, embedded at build time, applied in
/// order and recorded in the table `gpslog_schema` (one row per script applied).
public enum PostgresSchema {
    /// One numbered script.
    public struct Script: Sendable {
        /// Its number, from the file name's leading digits (1, 2, ...).
        public let version: Int
        /// The file's name (`001_schema.sql`), named in errors.
        public let fileName: String
        /// The script's text.
        public let sql: String
    }

    /// All scripts, in version order.
    public static let all: [Script] = {
        let scripts = EmbeddedResources.files.compactMap { file -> Script? in
            guard file.name.hasSuffix(".sql"), let number = Int(file.name.prefix { $0.isNumber }) else { return nil }
            return Script(version: number, fileName: file.name, sql: file.contents)
        }.sorted { $0.version < $1.version }
        precondition(
            scripts.enumerated().allSatisfy { $0.element.version == $0.offset + 1 },
            "Schema/postgres/ scripts are not numbered 1...n, each once")
        return scripts
    }()

    /// The schema version this build creates.
    public static var latestVersion: Int { all.last?.version ?? 0 }

    /// A number of gpslog's own for `pg_advisory_xact_lock` ("gpsl" in ASCII): processes that start at once (two
    /// serve processes, a sync) apply the scripts one after the other, and the second finds them applied.
    static let lockKey: Int64 = 0x6770_736C

    /// Brings the database's schema up to date; a database that has it already costs one query.
    /// - Returns: the versions applied now (empty when none was missing).
    /// - Throws: `PostgresError.postgisMissing` when PostGIS cannot be created, `.schemaTooNew`, `.server`.
    @discardableResult
    public static func prepare(_ db: PostgresDatabase) throws -> [Int] {
        if try version(db) == latestVersion { return [] }
        return try db.transaction(doing: "setting up gpslog's tables") {
            try db.execute("SELECT pg_advisory_xact_lock(\(lockKey))", doing: "waiting for another gpslog's setup")
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS gpslog_schema (
                    version integer PRIMARY KEY, file text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, doing: "creating gpslog_schema")
            let current = try version(db)
            if current > latestVersion {
                throw PostgresError.schemaTooNew(
                    database: db.location.description, found: current, supported: latestVersion)
            }
            var applied: [Int] = []
            for script in all where script.version > current {
                for statement in statements(script.sql) {
                    do {
                        try db.execute(statement, doing: "applying \(script.fileName)")
                    } catch let error as PostgresError where statement.contains("CREATE EXTENSION") {
                        throw PostgresError.postgisMissing(
                            database: db.location.description, message: error.serverMessage ?? describeForPeople(error))
                    }
                }
                var binds = PostgresBindings()
                binds.append(script.version)
                binds.append(script.fileName)
                try db.execute(
                    "INSERT INTO gpslog_schema (version, file) VALUES ($1, $2)", binds, doing: "recording the schema")
                applied.append(script.version)
            }
            return applied
        }
    }

    /// The last script applied; 0 for a database gpslog never set up.
    public static func version(_ db: PostgresDatabase) throws -> Int {
        // Two statements: one naming a table that does not exist fails when planned, whatever a CASE says.
        let exists = try db.query(
            "SELECT to_regclass('gpslog_schema') IS NOT NULL", doing: "reading the schema version")
        guard try exists.first?.decode(Bool.self) == true else { return 0 }
        let rows = try db.query(
            "SELECT coalesce(max(version), 0) FROM gpslog_schema", doing: "reading the schema version")
        return try rows.first?.decode(Int.self) ?? 0
    }

    /// A script's statements, one by one (the extended protocol runs one per query): split at a `;` that ends a line
    /// outside a `$$` body.
    static func statements(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var inBody = false
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            let code = line.hasPrefix("--") ? "" : String(line)
            if code.components(separatedBy: "$$").count % 2 == 0 { inBody.toggle() }
            current += line + "\n"
            if !inBody, code.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                statements.append(current)
                current = ""
            }
        }
        if current.contains(where: { !$0.isWhitespace }) { statements.append(current) }
        return statements.filter { statement in
            statement.split(separator: "\n").contains { !$0.hasPrefix("--") && $0.contains { !$0.isWhitespace } }
        }
    }
}

extension PostgresError {
    /// The server's words of a `.server` error.
    var serverMessage: String? {
        if case .server(_, _, let message, _) = self { return message }
        return nil
    }
}
