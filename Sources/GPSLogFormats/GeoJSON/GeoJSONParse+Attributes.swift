// SPDX-License-Identifier: MIT
import GPSLogModel

/// `coordAttributes`: gpslog's per-position attributes (`Entry.attributes`), shaped as `coordTimes` (nested per line
/// for a MultiLineString), an object of text values or null per position. Read within `PointAttributes`' bounds, as
/// `serve` keeps a Traccar client's: a key over one, or a value that is not a string, number or boolean, is left out
/// and counted for a note (`AttributesLeftOut`); anything but an array of objects and nulls is refused.
extension GeoJSONParse {
    /// The value of a `coordAttributes` member, set aside until the positions pair with it.
    mutating func attributes(_ f: inout Feature) throws {
        let event = try json.next()
        guard event == .arrayStart else {
            throw json.malformed("'coordAttributes' is not an array (of an object or null per position)")
        }
        // Twice, or after the line was reported (a second `properties`): the first is used, as for coordTimes.
        guard f.attributes == nil && !f.streaming else {
            try json.skipRest()
            return
        }
        let spool = GeoJSONSpool(recordSize: 0)
        let level = json.depth
        while json.depth >= level {
            switch try json.next() {
            case .arrayStart, .arrayEnd: continue
            case .null: try spool.append { SpooledAttributes.append(nil, to: &$0) }
            case .objectStart:
                let a = try attributeObject()
                try spool.append { SpooledAttributes.append(a, to: &$0) }
            default:
                throw json.malformed("a position's attributes are an object of text values or null")
            }
        }
        f.attributes = spool
    }

    /// One position's attributes, the object just opened: nil when none is kept.
    private mutating func attributeObject() throws -> [String: String]? {
        var kept: [String: String] = [:]
        var leftOut: [String] = []
        while try json.next() != .objectEnd {
            // The key is cut at the reader's `maxString`, far over the bound: a cut key is still over it.
            let key = json.string
            let value: String?
            switch try json.next() {
            case .string: value = json.string
            case .number(let n): value = PointAttributes.text(n)
            case .bool(let b): value = b ? "true" : "false"
            case let other:  // an object, an array, null: left out, as `serve` leaves out a nested extras value
                try json.skip(other)
                value = nil
            }
            if let value {
                PointAttributes.keep(key, value, in: &kept, leftOut: &leftOut)
            } else {
                leftOut.append("'\(key.truncated(to: 40).visible)' (a value is a string, number or boolean)")
            }
        }
        attributesLeftOut.add(leftOut)
        return kept.isEmpty ? nil : kept
    }
}

/// The attributes `coordAttributes` held that were left out: how many, of how many positions, and the first few
/// reasons, said once in a note after the file (bounded: a hostile file may leave out millions).
struct AttributesLeftOut {
    private(set) var keys = 0
    private(set) var positions = 0
    private(set) var examples: [String] = []

    mutating func add(_ leftOut: [String]) {
        guard !leftOut.isEmpty else { return }
        keys += leftOut.count
        positions += 1
        for reason in leftOut where examples.count < 3 && !examples.contains(reason) { examples.append(reason) }
    }

    /// The note, or nil when nothing was left out.
    var note: String? {
        guard keys > 0 else { return nil }
        return
            "left out \(keys) attribute(s) of \(positions) position(s) in 'coordAttributes', over the bounds "
            + "gpslog keeps (\(PointAttributes.maxCount) keys of 1 to \(PointAttributes.maxKeyLength) bytes, text of "
            + "at most \(PointAttributes.maxValueLength) bytes): \(examples.joined(separator: ", "))"
            + (keys > examples.count ? ", ..." : "")
    }
}

/// A position's attributes as a spool record: per key, sorted, its length (2 bytes), the key, the value's length and
/// the value; none for null (the bounds keep each under 64 KiB).
enum SpooledAttributes {
    static func append(_ attributes: [String: String]?, to b: inout [UInt8]) {
        guard let attributes else { return }
        func text(_ s: String) {
            withUnsafeBytes(of: UInt16(s.utf8.count).littleEndian) { b.append(contentsOf: $0) }
            b.append(contentsOf: s.utf8)
        }
        for key in attributes.keys.sorted() {
            text(key)
            text(attributes[key]!)
        }
    }

    static func read(_ r: UnsafeRawBufferPointer) -> [String: String]? {
        guard !r.isEmpty else { return nil }
        var attributes: [String: String] = [:]
        var p = 0
        func text() -> String {
            let n = Int(UInt16(littleEndian: r.loadUnaligned(fromByteOffset: p, as: UInt16.self)))
            defer { p += 2 + n }
            return String(decoding: UnsafeRawBufferPointer(rebasing: r[(p + 2)..<(p + 2 + n)]), as: UTF8.self)
        }
        while p < r.count {
            let key = text()
            attributes[key] = text()
        }
        return attributes
    }
}
