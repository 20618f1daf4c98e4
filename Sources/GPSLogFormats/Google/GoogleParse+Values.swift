// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// The values Google's layouts hold, read after their key: each of the type the layout gives it, or null for none;
/// anything else is refused with its JSON path.
extension GoogleParse {
    /// A value refused at the current path.
    func invalid(_ shown: String) -> ImportError {
        .invalidValue(file: json.file, line: json.line, field: json.path, value: shown)
    }

    /// How a number read is shown in a refusal (an integer without `.0`).
    static func shown(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e18 ? String(Int64(v)) : "\(v)"
    }

    /// A number; null is none.
    mutating func number() throws -> Double? {
        switch try json.next() {
        case .number(let v): return v
        case .null: return nil
        case .string: throw invalid(json.string)
        default: throw json.malformed("a number expected")
        }
    }

    /// A number, or a number written as a string (the iOS export writes `"12"`, `"0.93"`); null is none.
    mutating func looseNumber() throws -> Double? {
        switch try json.next() {
        case .number(let v): return v
        case .null: return nil
        case .string:
            let t = ByteNumber.trimmed(json.text)
            guard JSONNumberGrammar.matches(Array(t)), let v = ByteNumber.double(t) else { throw invalid(json.string) }
            return v
        default: throw json.malformed("a number expected")
        }
    }

    /// A measure that cannot be negative (an accuracy, a speed): a negative one means unknown, as in CoreLocation.
    mutating func measure() throws -> Double? {
        try looseNumber().flatMap { $0 < 0 ? nil : $0 }
    }

    /// A string; null is none, and so is an empty one.
    mutating func text() throws -> String? {
        switch try json.next() {
        case .string: return json.text.isEmpty ? nil : json.string
        case .null: return nil
        default: throw json.malformed("a string expected")
        }
    }

    /// Degrees times 10^7 (`latitudeE7`, `latE7`), as an integer. Old exports hold some negative values as their
    /// unsigned 32-bit two's complement (`4233738877` for -6.1228419°); like Scarygami's location-history-json-converter
    /// (the converter Google's own help pointed to), a value over 1,800,000,000, which no latitude or longitude can be,
    /// has 2^32 taken off. What is left must be in range.
    mutating func e7(latitude: Bool) throws -> Double? {
        guard let v = try number() else { return nil }
        guard v == v.rounded(), abs(v) < 4_294_967_296 else { throw invalid(Self.shown(v)) }
        var n = Int64(v)
        if n > 1_800_000_000 {
            n -= 4_294_967_296
            wrapped += 1
        }
        let degrees = Double(n) / 1e7
        guard abs(degrees) <= (latitude ? 90 : 180) else { throw invalid(Self.shown(v)) }
        return degrees
    }

    /// An ISO 8601 time (`2022-01-12T17:18:24.190Z`, `2024-01-01T10:00:00.000+02:00`); null is none.
    mutating func isoTime() throws -> Timestamp? {
        switch try json.next() {
        case .null: return nil
        case .string:
            let t = json.text.count <= 64 ? Timestamp(iso8601Bytes: json.text) : nil
            return try checked(t, shown: json.string)
        default: throw json.malformed("a time expected (ISO 8601 text)")
        }
    }

    /// Unix milliseconds, as Google writes them (`"1486110600090"`), or as a number; null is none.
    mutating func millisecondsTime() throws -> Timestamp? {
        let v: Double?
        switch try json.next() {
        case .null: return nil
        case .number(let n): v = n
        case .string:
            let t = json.text
            v = t.count < 20 && JSONNumberGrammar.matches(t) ? ByteNumber.double(t) : nil
            guard v != nil else { throw invalid(json.string) }
        default: throw json.malformed("a time expected (Unix milliseconds)")
        }
        let ms = v!
        let t = ms == ms.rounded() && abs(ms) < 1e15 ? Timestamp(milliseconds: Int64(ms)) : nil
        return try checked(t, shown: Self.shown(ms))
    }

    /// A time that was read (nil: it was not one), between 1980 and tomorrow.
    func checked(_ t: Timestamp?, shown: String) throws -> Timestamp {
        guard let t else { throw invalid(shown) }
        guard window.contains(t) else { throw invalid(shown + " (outside 1980 to tomorrow)") }
        return t
    }

    /// A position written as text: `"52.1°, 5.2°"` (Android), `"geo:52.1,5.2"` (iOS) or `"52.1,5.2"`; null is none.
    mutating func latLngText() throws -> (Double, Double)? {
        switch try json.next() {
        case .null: return nil
        case .string:
            guard let p = Self.latLng(json.text) else { throw invalid(json.string) }
            return p
        default: throw json.malformed("a position expected (\"52.1°, 5.2°\" or \"geo:52.1,5.2\")")
        }
    }

    /// Parses a position's text: latitude, longitude, each a JSON number with an optional degree sign; in range.
    static func latLng(_ text: [UInt8]) -> (Double, Double)? {
        var s = ByteNumber.trimmed(text)
        if s.starts(with: Array("geo:".utf8)) { s = s.dropFirst(4) }
        let parts = s.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var degrees: [Double] = []
        for part in parts {
            var p = ByteNumber.trimmed(part)
            if p.count >= 2, p[p.index(p.endIndex, offsetBy: -2)] == 0xC2, p.last == 0xB0 { p = p.dropLast(2) }  // °
            guard JSONNumberGrammar.matches(Array(p)), let v = ByteNumber.double(p) else { return nil }
            degrees.append(v)
        }
        guard abs(degrees[0]) <= 90, abs(degrees[1]) <= 180 else { return nil }
        return (degrees[0], degrees[1])
    }

    /// A device's tag (`deviceTag`, an integer in Records.json), as text; null is none.
    mutating func tag() throws -> String? {
        switch try json.next() {
        case .number(let v): return Self.shown(v)
        case .string: return json.text.isEmpty ? nil : String(json.string.prefix(64))
        case .null: return nil
        default: throw json.malformed("a device tag expected")
        }
    }

    /// Google's activity types as Overland's `motion` words (what gpslog keeps of a point's activity): Records.json's
    /// (`STILL`, `ON_FOOT`, `IN_VEHICLE`; `onFoot`, `inVehicle` before 2017) and the semantic files' (`WALKING`,
    /// `IN_PASSENGER_VEHICLE`, `IN_TRAIN`). nil for the rest (`TILTING`, `UNKNOWN`, `FLYING`, `SAILING`).
    static func motion(_ type: [UInt8]) -> String? {
        guard type.count <= 40 else { return nil }
        let key = String(decoding: type.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self).lowercased()
        switch key {
        case "still": return "stationary"
        case "onfoot", "walking", "hiking": return "walking"
        case "running": return "running"
        case "onbicycle", "cycling": return "cycling"
        case "invehicle", "inroadvehicle", "infourwheelervehicle", "intwowheelervehicle", "incar", "inbus",
            "inrailvehicle", "inpassengervehicle", "intrain", "intram", "insubway", "motorcycling":
            return "driving"
        default: return nil
        }
    }

    /// A place's semantic type as a label: `TYPE_HOME` and `HOME` are "Home", `INFERRED_WORK` "Inferred work"; none
    /// for `UNKNOWN`.
    static func placeLabel(semanticType: String) -> String? {
        var words = semanticType.lowercased()
        if words.hasPrefix("type_") { words.removeFirst(5) }
        words = words.replacingOccurrences(of: "_", with: " ").trimmedWhitespace
        guard !words.isEmpty, !words.hasPrefix("unknown") else { return nil }
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
