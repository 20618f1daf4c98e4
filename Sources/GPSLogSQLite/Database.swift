// SPDX-License-Identifier: MIT
import CSQLite3
import Foundation

/// A raw `sqlite3 *`.
public typealias SQLiteConnectionHandle = OpaquePointer

/// One SQLite connection.
///
/// Concurrency model: a `Database` is opened with `SQLITE_OPEN_NOMUTEX` and must be used by one thread at a time
/// (an actor or a single task owns it), like GRDB's serialized database access. It is deliberately not `Sendable`.
/// Prepared statements are cached per SQL text and reused with `sqlite3_reset`.
public final class Database {
    /// The file this connection opened.
    public let path: String
    /// The raw connection; nil after `close()`.
    public private(set) var handle: SQLiteConnectionHandle?
    private var statementCache: [String: Statement] = [:]

    /// How to open the file.
    public struct OpenMode: Sendable {
        let flags: Int32
        var immutable = false
        /// Read and write, creating the file when it does not exist.
        public static let readWriteCreate = OpenMode(flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        /// Read-only: the file must exist, and nothing is written to it.
        public static let readOnly = OpenMode(flags: SQLITE_OPEN_READONLY)
        /// Read-only, and no process can change the file while it is open (a read-only file system): SQLite takes
        /// no locks and needs no `-shm`. It does not read a `-wal`: only for a file whose WAL is empty or gone.
        ///
        /// Related SQLite documentation: <https://www.sqlite.org/uri.html#uriimmutable>
        public static let immutable = OpenMode(flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, immutable: true)
    }

    /// Process-wide settings, applied once before the first connection opens.
    private static let processSetup: Void = { _ = CSQLite3_disableMemoryStatistics() }()

    /// Opens (and with `.readWriteCreate` creates) a database file.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/open.html>
    /// - Throws: `SQLiteError` with SQLite's message when the file cannot be opened.
    public init(path: String, mode: OpenMode = .readWriteCreate) throws {
        _ = Database.processSetup
        self.path = path
        var db: OpaquePointer?
        let flags = mode.flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let name =
            mode.immutable
            ? "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1"
            : path
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            // > Whether or not an error occurs when it is opened, resources associated with the database
            // > connection handle should be released by passing it to sqlite3_close() when it is no longer required.
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let failure = SQLiteError.make(code: rc, connection: db, message: "\(message) (\(path))")
            sqlite3_close(db)
            throw failure
        }
        handle = db
        _ = CSQLite3_disableDQS(db)
    }

    deinit { close() }

    /// Finalizes cached statements and closes the connection. Safe to call twice.
    public func close() {
        statementCache.removeAll()
        guard let handle else { return }
        // close_v2 defers the close until any statement still alive elsewhere (an open cursor) is finalized.
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    /// The open handle, or an error if the connection was closed.
    @inline(__always) func liveHandle() throws -> SQLiteConnectionHandle {
        guard let handle else { throw SQLiteError.misuse("database \(path) is closed") }
        return handle
    }

    // MARK: - Errors

    /// The one funnel from SQLite status codes to Swift errors: throws unless `code` is accepted, with
    /// `sqlite3_errmsg` and the SQL that failed.
    @discardableResult
    public func check(_ code: Int32, sql: String? = nil, accepted: Int32 = SQLITE_OK) throws -> Int32 {
        guard code != accepted else { return code }
        throw SQLiteError.make(code: code, connection: handle, sql: sql)
    }

    // MARK: - Executing

    /// Runs one or more SQL statements that return no rows (schema scripts, pragmas).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/exec.html>
    public func execute(_ sql: String) throws {
        let db = try liveHandle()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw SQLiteError.make(code: rc, connection: db, sql: sql, message: message)
        }
    }

    /// Prepares a new statement (not cached).
    public func makeStatement(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// A prepared statement for `sql`, reused across calls: reset and with its bindings cleared.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `sql` with `arguments`, stepping through any rows.
    public func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        while try statement.step() {}
        statement.reset()
    }

    /// The first column of the first row, or nil when there is no row.
    public func scalar(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.value(at: 0)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// Rowid of the last successful INSERT.
    public var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// True while a transaction is open.
    public var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    // MARK: - Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes the write lock at once, so a writer never fails half-way with SQLITE_BUSY on lock upgrade
        /// (the busy handler is not called for an upgrade from a read transaction in WAL mode).
        case immediate = "IMMEDIATE"
        case deferred = "DEFERRED"
    }

    /// Runs `body` inside a transaction: committed when it returns, rolled back whole when it throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: - Settings

    /// Milliseconds SQLite waits for another connection's lock before giving up with SQLITE_BUSY.
    public func setBusyTimeout(milliseconds: Int32) throws {
        try check(sqlite3_busy_timeout(try liveHandle(), milliseconds))
    }

    /// Turns foreign-key enforcement on or off (`SQLITE_DBCONFIG_ENABLE_FKEY`).
    public func setForeignKeys(enabled: Bool) throws {
        try check(CSQLite3_enableForeignKeys(try liveHandle(), enabled ? 1 : 0))
    }

    /// `PRAGMA user_version`, which tracks the schema migration level.
    public func userVersion() throws -> Int {
        Int(try scalar("PRAGMA user_version")?.int64 ?? 0)
    }

    /// Sets `PRAGMA user_version`.
    public func setUserVersion(_ version: Int) throws {
        try execute("PRAGMA user_version = \(version)")
    }
}

// Explicit non-conformance: a connection opened NOMUTEX must be used from one thread at a time.
@available(*, unavailable)
extension Database: Sendable {}
