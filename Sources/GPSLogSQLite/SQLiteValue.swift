// SPDX-License-Identifier: MIT

/// A value SQLite stores: NULL, INTEGER, REAL, TEXT or BLOB.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The value as an integer when it is one.
    public var int64: Int64? {
        switch self {
        case .integer(let v): v
        case .real(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// The value as a double when it is numeric.
    public var double: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: nil
        }
    }

    /// The value as text when it is text.
    public var string: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    /// An integer, or NULL for nil.
    public init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    /// An integer, or NULL for nil.
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    /// A real, or NULL for nil.
    public init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    /// Text, or NULL for nil.
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    /// 1 for true, 0 for false, as SQLite keeps booleans.
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
