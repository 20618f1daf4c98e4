// SPDX-License-Identifier: MIT
import CSQLite3

/// An application-defined SQL function: called with the arguments of one call, returns its result.
public typealias SQLFunction = ([SQLiteValue]) throws -> SQLiteValue

/// The closure behind a registered function, kept alive by SQLite (freed by its destructor).
private final class FunctionBox {
    let body: SQLFunction
    init(_ body: @escaping SQLFunction) { self.body = body }
}

extension Database {
    /// Registers (or replaces) the SQL function `name` taking `arity` arguments on this connection.
    ///
    /// Deterministic functions may be used in indexes, CHECKs and views (and are computed once for constant
    /// arguments). A thrown error becomes the SQL statement's error, with the error's description.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/create_function.html>
    public func createFunction(
        _ name: String, arity: Int32, deterministic: Bool = true, _ body: @escaping SQLFunction
    ) throws {
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let rc = sqlite3_create_function_v2(
            try liveHandle(), name, arity, flags, box,
            { context, count, values in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                let arguments = (0..<Int(count)).map { SQLiteValue(values![$0]) }
                do {
                    switch try box.body(arguments) {
                    case .null: sqlite3_result_null(context)
                    case .integer(let v): sqlite3_result_int64(context, v)
                    case .real(let v): sqlite3_result_double(context, v)
                    case .text(var v):
                        v.withUTF8 {
                            sqlite3_result_text(context, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
                        }
                    case .blob(let v):
                        v.withUnsafeBytes {
                            sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
                        }
                    }
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                }
            }, nil, nil,
            { box in box.map { Unmanaged<FunctionBox>.fromOpaque($0).release() } })
        try check(rc)
    }
}

extension SQLiteValue {
    /// The value of an `sqlite3_value` (a function's argument).
    init(_ value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            self = .text(
                sqlite3_value_text(value).map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            self = .blob(sqlite3_value_blob(value).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
        default: self = .null
        }
    }
}
