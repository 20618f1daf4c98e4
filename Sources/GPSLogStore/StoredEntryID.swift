// SPDX-License-Identifier: MIT
import GPSLogSQLite

/// How `EntryRows.EntryID` holds an entry's id (see `Schema/020_compact_rows.sql`).
///
/// Most ids are version 7 UUIDs made from the entry's own time: their first 48 bits are its `TimeStamp` in
/// milliseconds, so only the other 10 bytes are stored. Any other lower-case UUID is stored whole (16 bytes); any
/// other text (an upper-case UUID written by hand, an id that is no UUID) as it is, so every id reads back as it was
/// written.
enum StoredEntryID: Equatable {
    /// A UUID whose first 6 bytes are the entry's time: the other 10 are stored.
    case afterTime(UUIDBytes)
    /// Any other lower-case UUID: all 16 bytes.
    case whole(UUIDBytes)
    /// Text that is not a lower-case hyphenated UUID, as it is.
    case text(String)

    /// A UUID's 16 bytes, big-endian in two words (no heap allocation per row).
    struct UUIDBytes: Equatable {
        var high: UInt64
        var low: UInt64

        /// The first 48 bits: a version 7 UUID's time in milliseconds.
        var time: Int64 { Int64(high >> 16) }

        /// Calls `body` with the bytes from `offset` (0: all 16; 6: the 10 after the time).
        func withBytes<T>(from offset: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            var words = (high.bigEndian, low.bigEndian)
            return try withUnsafeBytes(of: &words) { try body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        }
    }

    /// Whether the id is a lower-case hyphenated UUID (36 ASCII characters).
    var isUUID: Bool {
        if case .text = self { return false }
        return true
    }

    /// The stored form of `id` for an entry at `time` (milliseconds).
    init(_ id: String, time: Int64) {
        guard let bytes = StoredEntryID.uuidBytes(id) else {
            self = .text(id)
            return
        }
        self = bytes.time == time ? .afterTime(bytes) : .whole(bytes)
    }

    /// The 16 bytes of a lower-case hyphenated UUID (8-4-4-4-12 hexadecimal digits), or nil.
    static func uuidBytes(_ id: String) -> UUIDBytes? {
        var id = id
        return id.withUTF8 { c -> UUIDBytes? in
            guard c.count == 36, c[8] == 0x2D, c[13] == 0x2D, c[18] == 0x2D, c[23] == 0x2D else { return nil }
            // One run per entry of every import: a table look-up a digit, and one test for them all at the end.
            return StoredEntryID.hexValues.withUnsafeBufferPointer { table in
                var seen: UInt8 = 0
                @inline(__always) func digits(_ range: Range<Int>, into word: inout UInt64) {
                    for i in range {
                        let v = table[Int(c[i])]
                        seen |= v
                        word = word << 4 | UInt64(v)
                    }
                }
                var high: UInt64 = 0
                var low: UInt64 = 0
                digits(0..<8, into: &high)
                digits(9..<13, into: &high)
                digits(14..<18, into: &high)
                digits(19..<23, into: &low)
                digits(24..<36, into: &low)
                return seen & 0x10 == 0 ? UUIDBytes(high: high, low: low) : nil
            }
        }
    }

    /// A byte's value as a lower-case hexadecimal digit; 0x10 for any other byte.
    private static let hexValues: [UInt8] = (0..<256).map { b in
        switch b {
        case 0x30...0x39: UInt8(b - 0x30)
        case 0x61...0x66: UInt8(b - 0x61 + 10)
        default: 0x10
        }
    }

    /// Binds the stored form.
    func bind(to s: Statement, at index: Int32) throws {
        switch self {
        case .afterTime(let bytes): try bytes.withBytes(from: 6) { try s.bind(bytes: $0, at: index) }
        case .whole(let bytes): try bytes.withBytes(from: 0) { try s.bind(bytes: $0, at: index) }
        case .text(let text): try s.bind(text, at: index)
        }
    }

    /// The stored form as a value (for queries).
    var value: SQLiteValue {
        switch self {
        case .afterTime(let bytes): bytes.withBytes(from: 6) { .blob(Array($0)) }
        case .whole(let bytes): bytes.withBytes(from: 0) { .blob(Array($0)) }
        case .text(let text): .text(text)
        }
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// The id text of a stored blob: 10 bytes after the time `time`, or 16 bytes (anything else, which the schema
    /// does not allow, in plain hexadecimal).
    static func text(blob: UnsafeRawBufferPointer, time: Int64) -> String {
        guard blob.count == 10 || blob.count == 16 else {
            return String(decoding: blob.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: 36) { out in
            var o = 0
            var n = 0
            func digit(_ nibble: UInt8) {
                if n == 8 || n == 12 || n == 16 || n == 20 {
                    out[o] = UInt8(ascii: "-")
                    o += 1
                }
                out[o] = digits[Int(nibble)]
                o += 1
                n += 1
            }
            func put(_ byte: UInt8) {
                digit(byte >> 4)
                digit(byte & 15)
            }
            if blob.count == 10 {
                for shift in stride(from: 40, through: 0, by: -8) { put(UInt8(truncatingIfNeeded: time >> shift)) }
            }
            for byte in blob { put(byte) }
            return o
        }
    }
}
