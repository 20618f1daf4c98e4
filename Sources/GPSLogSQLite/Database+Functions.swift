// SPDX-License-Identifier: MIT
import CSQLite3

/// Holds a Swift closure for the C callback of an SQL function.
final class FunctionBox {
    let body: ([SQLiteValue]) -> SQLiteValue
    init(_ body: @escaping ([SQLiteValue]) -> SQLiteValue) { self.body = body }
}

extension Database {
    /// Registers a scalar SQL function implemented in Swift.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/create_function.html>
    /// - Parameters:
    ///   - name: the SQL name.
    ///   - argumentCount: how many arguments it takes.
    ///   - deterministic: same result for the same arguments (lets SQLite use it in indexes and CHECKs).
    ///   - body: computes the result.
    public func createFunction(
        _ name: String, argumentCount: Int32, deterministic: Bool = true,
        _ body: @escaping ([SQLiteValue]) -> SQLiteValue
    ) throws {
        let db = try liveHandle()
        let box = FunctionBox(body)
        functionBoxes.append(box)
        // Unmanaged: the box is retained by `functionBoxes` for the connection's lifetime, so passUnretained is safe.
        let context = Unmanaged.passUnretained(box).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let rc = sqlite3_create_function_v2(
            db, name, argumentCount, flags, context,
            { ctx, argc, argv in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(ctx)).takeUnretainedValue()
                var args: [SQLiteValue] = []
                args.reserveCapacity(Int(argc))
                for i in 0..<Int(argc) {
                    let v = argv![i]
                    switch sqlite3_value_type(v) {
                    case SQLITE_INTEGER: args.append(.integer(sqlite3_value_int64(v)))
                    case SQLITE_FLOAT: args.append(.real(sqlite3_value_double(v)))
                    case SQLITE_TEXT: args.append(.text(String(cString: sqlite3_value_text(v))))
                    default: args.append(.null)
                    }
                }
                switch box.body(args) {
                case .null: sqlite3_result_null(ctx)
                case .integer(let i): sqlite3_result_int64(ctx, i)
                case .real(let d): sqlite3_result_double(ctx, d)
                case .text(let s): sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT)
                case .blob(let b): b.withUnsafeBytes { sqlite3_result_blob(ctx, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
                }
            }, nil, nil, nil)
        try check(rc)
    }
}
