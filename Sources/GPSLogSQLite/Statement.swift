// SPDX-License-Identifier: MIT
import CSQLite3

/// A raw `sqlite3_stmt *`.
public typealias SQLiteStatementHandle = OpaquePointer

/// SQLite's SQLITE_TRANSIENT (a cast macro that does not import): SQLite copies the bytes before the call returns.
// swift-format-ignore: AlwaysUseLowerCamelCase
let SQLITE_TRANSIENT = CSQLite3_transient()

/// A prepared statement. It owns its handle and finalizes it in `deinit`.
///
/// Bind with the typed `bind(_:at:)` methods (1-based indices, as in SQLite), then `step()` until it returns false.
public final class Statement {
    /// The raw statement.
    public let handle: SQLiteStatementHandle
    /// The SQL it was prepared from (for error messages).
    public let sql: String
    // Strong: a statement must not outlive its connection's handle.
    private let database: Database

    init(database: Database, sql: String) throws {
        let db = try database.liveHandle()
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        try database.check(rc, sql: sql)
        guard let statement else {
            throw SQLiteError.misuse("empty statement", sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: - Binding

    /// Resets the statement so it can run again, and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets the statement and keeps its parameters' values, for a caller that binds every one of them again.
    public func resetKeepingBindings() {
        sqlite3_reset(handle)
    }

    /// Binds a list of values to parameters 1...n.
    public func bind(_ values: [SQLiteValue]) throws {
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1)) }
    }

    /// Binds one value to parameter `index` (1-based), with the `bind` that fits its type.
    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v):
            let rc = v.withUnsafeBytes {
                sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
            }
            try database.check(rc, sql: sql)
        }
    }

    /// Binds NULL to parameter `index` (1-based). See `sqlite3_bind_null`.
    @inline(__always) public func bindNull(at index: Int32) throws {
        try database.check(sqlite3_bind_null(handle, index), sql: sql)
    }

    /// Binds a real, or NULL for nil and NaN. See `sqlite3_bind_double`.
    @inline(__always) public func bind(_ value: Double?, at index: Int32) throws {
        // NaN would be stored as NULL by SQLite; keep it NULL explicitly so NOT NULL constraints catch it.
        guard let value, !value.isNaN else { return try bindNull(at: index) }
        try database.check(sqlite3_bind_double(handle, index, value), sql: sql)
    }

    /// Binds an integer, or NULL for nil. See `sqlite3_bind_int64`.
    @inline(__always) public func bind(_ value: Int64?, at index: Int32) throws {
        guard let value else { return try bindNull(at: index) }
        try database.check(sqlite3_bind_int64(handle, index, value), sql: sql)
    }

    /// Binds an integer, or NULL for nil. See `sqlite3_bind_int64`.
    @inline(__always) public func bind(_ value: Int?, at index: Int32) throws {
        try bind(value.map { Int64($0) }, at: index)
    }

    /// Binds 1 for true, 0 for false.
    @inline(__always) public func bind(_ value: Bool, at index: Int32) throws {
        try bind(Int64(value ? 1 : 0), at: index)
    }

    /// Binds bytes as a BLOB (copied before the call returns).
    public func bind(bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        let rc = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), SQLITE_TRANSIENT)
        try database.check(rc, sql: sql)
    }

    /// Binds text as UTF-8 (copied before the call returns), or NULL for nil. See `sqlite3_bind_text`.
    public func bind(_ value: String?, at index: Int32) throws {
        guard var value else { return try bindNull(at: index) }
        let rc = value.withUTF8 { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
        try database.check(rc, sql: sql)
    }

    // MARK: - Stepping

    /// Runs one step. Returns true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let db = try database.liveHandle()
        let failure = SQLiteError.make(code: rc, connection: db, sql: sql)
        sqlite3_reset(handle)
        throw failure
    }

    // MARK: - Reading columns of the current row

    /// Whether the current row's `column` (0-based) is NULL.
    @inline(__always) public func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The current row's `column` (0-based) as a real; nil for NULL.
    @inline(__always) public func double(at column: Int32) -> Double? {
        isNull(at: column) ? nil : sqlite3_column_double(handle, column)
    }

    /// The current row's `column` (0-based) as an integer; nil for NULL.
    @inline(__always) public func int64(at column: Int32) -> Int64? {
        isNull(at: column) ? nil : sqlite3_column_int64(handle, column)
    }

    /// A column declared NOT NULL, read without asking its type first (NULL would read as 0).
    @inline(__always) public func requiredDouble(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// A column declared NOT NULL, read without asking its type first (NULL would read as 0).
    @inline(__always) public func requiredInt64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The current row's `column` (0-based) as an integer; nil for NULL.
    @inline(__always) public func int(at column: Int32) -> Int? {
        isNull(at: column) ? nil : Int(sqlite3_column_int64(handle, column))
    }

    /// The current row's `column` (0-based) as text (invalid UTF-8 repaired); nil for NULL.
    public func string(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Calls `body` with the column's text as UTF-8 bytes (valid only during the call), without making a String;
    /// nil when it is NULL.
    public func withText<T>(at column: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return try body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// Calls `body` with the column's bytes when it holds a BLOB (valid only during the call); nil otherwise.
    public func withBlob<T>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, column), count: count))
    }

    /// The column as a dynamically typed value.
    public func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(string(at: column) ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let p = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: count)))
        default: return .null
        }
    }
}

// Explicit non-conformance: statements belong to their connection's thread.
@available(*, unavailable)
extension Statement: Sendable {}
