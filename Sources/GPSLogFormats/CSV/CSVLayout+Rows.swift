// SPDX-License-Identifier: MIT
import GPSLogModel

/// One CSV record as an entry, and what says which session and segment it belongs to.
public struct CSVRow {
    /// What a row is: a track point, a mark, or a heading change (`kind`; a GPSLogger annotation makes a mark).
    public enum Kind: Sendable { case track, mark, heading }

    /// The entry (the file's `entry_id`, else an empty id; time 0 when `hasTime` is false).
    public var entry: Entry
    /// Whether the row had a time.
    public var hasTime: Bool
    /// Track point, mark or heading change.
    public var kind: Kind
    /// gpslog's `session` id, or GDAL's `track_fid`: rows with another value make another session.
    public var group: String?
    /// gpslog's session id, to keep when free.
    public var sessionID: String?
    /// gpslog's `session_name`, when the file has one.
    public var sessionName: String?
    /// GDAL's `track_seg_id`.
    public var segment: String?
}

/// Texts that repeat from row to row (a session's id and name) made into a String once, not once per row.
public struct CSVTextCache {
    private var bytes: [[UInt8]] = []
    private var strings: [String?] = []

    /// An empty cache.
    public init() {}

    /// The text of `value` (nil when blank), remembered under `slot`.
    mutating func text(_ value: ArraySlice<UInt8>, slot: Int) -> String? {
        while bytes.count <= slot {
            bytes.append([0xFF])
            strings.append(nil)
        }
        if bytes[slot].elementsEqual(value) { return strings[slot] }
        bytes[slot] = Array(value)
        let t = String(decoding: value, as: UTF8.self)
        strings[slot] = t.trimmedWhitespace.isEmpty ? nil : t
        return strings[slot]
    }
}

extension CSVLayout {
    /// The reader's current record as a row. A value that is not a number, a time that is not one (or outside 1980
    /// to tomorrow), a position out of range: refused with the line and the column's name from `header`.
    /// `delimiter` other than `,` lets numbers have a decimal comma (`52,37`).
    public func row(_ r: CSVReader, header: [String], window: TimeWindow, cache: inout CSVTextCache) throws -> CSVRow {
        func refuse(_ column: Int, _ value: ArraySlice<UInt8>) -> ImportError {
            .invalidValue(
                file: r.file, line: r.line, field: "column '\(header[column])'",
                value: String(decoding: value, as: UTF8.self))
        }
        let decimalComma = r.delimiter != UInt8(ascii: ",")
        func number(_ column: Int?) throws -> Double? {
            guard let column else { return nil }
            let b = r.bytes(column)
            if b.isEmpty { return nil }
            if let v = ByteNumber.double(b) { return v }
            if decimalComma, b.contains(UInt8(ascii: ",")), !b.contains(UInt8(ascii: ".")),
                let v = ByteNumber.double(b.map { $0 == UInt8(ascii: ",") ? UInt8(ascii: ".") : $0 })
            {
                return v
            }
            throw refuse(column, b)
        }
        func known(_ column: Int?) throws -> Double? { try number(column).flatMap { $0 < 0 ? nil : $0 } }
        func text(_ column: Int?) -> String? {
            guard let column, !r.bytes(column).isEmpty else { return nil }
            var t = r.text(column)
            if isGPSLogExport, t.utf8.first == UInt8(ascii: "'") {
                t = String(decoding: t.utf8.dropFirst(), as: UTF8.self)
            }
            return t.trimmedWhitespace.isEmpty ? nil : t
        }
        /// A short keyword, compared as lower-case ASCII without making a String.
        func keyword(_ column: Int?) -> [UInt8] {
            guard let column else { return [] }
            let b = r.bytes(column)
            return b.count > 8 ? [] : b.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        }
        guard let lat = try number(latitude), abs(lat) <= 90 else { throw refuse(latitude, r.bytes(latitude)) }
        guard let lon = try number(longitude), abs(lon) <= 180 else { throw refuse(longitude, r.bytes(longitude)) }
        let t: Timestamp?
        switch CSVTime.parse(r.bytes(time), date: date.map { r.bytes($0) }, unit: timeUnit, decimalComma: decimalComma)
        {
        case .time(let parsed): t = parsed
        case .none: t = nil
        case .invalid(let badDate): throw refuse(badDate ? date! : time, badDate ? r.bytes(date!) : r.bytes(time))
        }
        if let t, !window.contains(t) {
            throw ImportError.invalidValue(
                file: r.file, line: r.line, field: "column '\(header[time])'",
                value: String(decoding: r.bytes(time), as: UTF8.self) + " (outside 1980 to tomorrow)")
        }
        // The file's entry id (gpslog's `entry_id`), which the import keeps when it is a free UUID.
        var e = Entry(id: text(entryID) ?? "", latitude: lat, longitude: lon, time: t ?? Timestamp(milliseconds: 0))
        e.altitude = try number(altitude)
        e.speed = try known(speed).map { $0 * speedFactor }
        e.course = try known(course).map { Geo.normalizedDegrees($0) }
        e.horizontalAccuracy = try known(horizontalAccuracy)
        e.verticalAccuracy = try known(verticalAccuracy)
        e.satellites = try number(satellites).flatMap { (0...1024).contains($0) ? Int($0) : nil }
        e.hdop = try known(hdop)
        e.vdop = try known(vdop)
        e.pdop = try known(pdop)
        switch keyword(fix) {
        case Array("2d".utf8), [50]: e.fixMode = .twoD
        case Array("3d".utf8), [51]: e.fixMode = .threeD
        default: break
        }
        e.instanceCount = try number(instanceCount).flatMap { $0 >= 1 && $0 < 1e9 ? Int($0) : nil } ?? 1
        e.address = text(address)
        e.batteryLevel = try known(battery).map { min(batteryIsPercent ? $0 / 100 : $0, 1) }
        var kind = CSVRow.Kind.track
        switch keyword(self.kind) {
        case Array("mark".utf8): kind = .mark
        case Array("heading".utf8): kind = .heading
        default:
            if let note = text(annotation) {
                kind = .mark
                e.label = note
            }
        }
        if kind == .mark { e.label = e.label ?? text(name) }
        if kind == .heading {
            guard let h = try number(heading), let t else { throw refuse(heading ?? time, r.bytes(heading ?? time)) }
            e.isHeadingChanged = true
            e.heading = Geo.normalizedDegrees(h)
            e.headingTime = t
        }
        func cached(_ column: Int?, _ slot: Int) -> String? {
            guard let column else { return nil }
            let b = r.bytes(column)
            // The quote is the cell's first byte (not one after spaces, which the bytes are trimmed of).
            let added =
                isGPSLogExport && column < r.fields.count && r.record[r.fields[column]].first == UInt8(ascii: "'")
            return cache.text(added ? b.dropFirst() : b, slot: slot)
        }
        let id = cached(session, 0)
        return CSVRow(
            entry: e, hasTime: t != nil, kind: kind, group: id ?? cached(track, 1), sessionID: id,
            sessionName: cached(sessionName, 2), segment: cached(segment, 3))
    }
}

/// Times as CSV files write them: ISO 8601 (a space for the `T`, GDAL's `2010/08/05 14:23:59+00`, GPSLogger's
/// `2024-01-01T12:00:00.000Z`), `DD.MM.YYYY HH:MM:SS`, Unix seconds or milliseconds, or GPSBabel's date and time in
/// two columns (`2010/08/05`, `14:23:59`). All without a zone are UTC.
enum CSVTime {
    enum Parsed {
        case time(Timestamp)
        /// Empty cells: a point without a time.
        case none
        /// Not a time: the time column's, or the date column's when `date`.
        case invalid(date: Bool)
    }

    static func parse(
        _ text: ArraySlice<UInt8>, date: ArraySlice<UInt8>?, unit: CSVLayout.TimeUnit, decimalComma: Bool
    ) -> Parsed {
        if text.isEmpty && (date?.isEmpty ?? true) { return .none }
        guard text.count <= 64 else { return .invalid(date: false) }
        if text.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || (decimalComma && $0 == 44) }),
            let v = ByteNumber.double(text.map { $0 == 44 ? UInt8(ascii: ".") : $0 })
        {
            let ms = unit == .milliseconds || v >= 1e11 ? v : v * 1000
            guard ms < 1e15 else { return .invalid(date: false) }
            return .time(Timestamp(milliseconds: Int64(ms.rounded())))
        }
        var bytes = Array(text)
        if let date, !date.isEmpty, !bytes.contains(UInt8(ascii: "-")), !bytes.contains(UInt8(ascii: "/")) {
            // A clock in this column, the date in another.
            guard let d = dayBytes(Array(date)) else { return .invalid(date: true) }
            bytes = d + [UInt8(ascii: "T")] + bytes
        } else if let d = dayBytes(bytes) {
            bytes = d
        }
        guard let t = Timestamp(iso8601Bytes: bytes) else { return .invalid(date: false) }
        return .time(t)
    }

    /// `YYYY/MM/DD...` and `DD.MM.YYYY...` as ISO 8601's `YYYY-MM-DD...`; nil when neither.
    private static func dayBytes(_ b: [UInt8]) -> [UInt8]? {
        func digits(_ r: Range<Int>) -> Bool { r.upperBound <= b.count && b[r].allSatisfy { $0 >= 48 && $0 <= 57 } }
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        if b.count >= 10, digits(0..<4), b[4] == slash, digits(5..<7), b[7] == slash, digits(8..<10) {
            var out = b
            out[4] = UInt8(ascii: "-")
            out[7] = UInt8(ascii: "-")
            return out
        }
        if b.count >= 10, digits(0..<2), b[2] == dot, digits(3..<5), b[5] == dot, digits(6..<10) {
            return Array(b[6..<10]) + [45] + Array(b[3..<5]) + [45] + Array(b[0..<2]) + Array(b[10...])
        }
        return b.count >= 10 && digits(0..<4) && b[4] == UInt8(ascii: "-") ? b : nil
    }
}
