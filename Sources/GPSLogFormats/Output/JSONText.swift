// SPDX-License-Identifier: MIT
import GPSLogModel

/// Incremental JSON output into a byte buffer: strings escaped per RFC 8259, numbers through `DecimalText`.
///
/// Written by hand because the exports stream: Foundation's JSONEncoder and JSONSerialization build the whole
/// document in memory, which would make memory grow with the session.
public enum JSONText {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends a quoted, escaped JSON string. Control characters become \u00XX; everything else is UTF-8 as is.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case 0x0A:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "n"))
            case 0x0D:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "r"))
            case 0x09:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                out.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)],
                ])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `"key":`.
    /// Appends `["a","b"]`.
    public static func appendStringArray(_ items: [String], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendString(item, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `["a","b"]` as a string.
    public static func stringArray(_ items: [String]) -> String {
        var out: [UInt8] = []
        appendStringArray(items, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `"key":`; the key is gpslog's own text and is written unescaped.
    @inline(__always) public static func appendKey(_ key: StaticString, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    /// Appends raw ASCII (punctuation, literals).
    @inline(__always) public static func appendRaw(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// Appends an ISO 8601 time as a JSON string.
    @inline(__always) public static func appendTime(_ t: Timestamp, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        t.appendISO8601(to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends an integer.
    @inline(__always) public static func appendInt(_ v: Int64, to out: inout [UInt8]) {
        out.append(contentsOf: String(v).utf8)
    }

    /// Appends `,"key":number` when the value is present.
    @inline(__always) public static func appendOptional(
        _ key: StaticString, _ v: Double?, places: Int, to out: inout [UInt8]
    ) {
        guard let v else { return }
        out.append(UInt8(ascii: ","))
        appendKey(key, to: &out)
        DecimalText.append(v, places: places, to: &out)
    }

    /// Appends `,"key":"text"` when the value is present.
    @inline(__always) public static func appendOptional(_ key: StaticString, _ v: String?, to out: inout [UInt8]) {
        guard let v else { return }
        out.append(UInt8(ascii: ","))
        appendKey(key, to: &out)
        appendString(v, to: &out)
    }
}
