// SPDX-License-Identifier: MIT
import CSQLite3
import Foundation

/// An error reported by SQLite: its extended result code, its own message, and the SQL that failed.
///
/// Bound values never appear in the description (they can hold user data or secrets), following GRDB's
/// `publicStatementArguments` rule.
public struct SQLiteError: Error, LocalizedError, Equatable, CustomStringConvertible {
    /// The extended result code (SQLITE_CONSTRAINT_CHECK, SQLITE_BUSY, ...).
    public var extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`).
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The one place a SQLite status becomes a Swift error (as GEOS's errors have one path): the extended code and
    /// `sqlite3_errmsg` of the connection when there is one, else `sqlite3_errstr` of the code; `message` replaces
    /// SQLite's words when the caller has better ones (a failed open names its file, `sqlite3_exec` its own text).
    static func make(code: Int32, connection: OpaquePointer?, sql: String? = nil, message: String? = nil) -> SQLiteError
    {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let text =
            message ?? connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return SQLiteError(extendedCode: extended, message: text, sql: sql)
    }

    /// A misuse found on the Swift side (a closed connection, an empty statement): no connection to ask.
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISUSE, message: message, sql: sql)
    }

    /// The primary result code (the low byte of the extended one).
    public var code: Int32 { extendedCode & 0xff }

    /// True for every kind of constraint violation (CHECK, NOT NULL, UNIQUE, FOREIGN KEY, ...).
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    /// True when another connection held a lock longer than the busy timeout (SQLITE_BUSY).
    public var isBusy: Bool { code == SQLITE_BUSY }

    /// The file is not a database, or a damaged one (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
    public var isCorruptFile: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    /// True for a NULL in a NOT NULL column (SQLite checks these before a row's CHECK constraints).
    public var isNotNullViolation: Bool { extendedCode == CSQLite3_CONSTRAINT_NOTNULL }

    /// "SQLite error CODE (NAME): message", then the SQL that failed when known.
    public var description: String {
        let name = String(cString: sqlite3_errstr(extendedCode))
        var text = "SQLite error \(extendedCode) (\(name)): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    /// The same words as `description`: SQLite's own, with the SQL that failed.
    public var errorDescription: String? { description }
}
