// SPDX-License-Identifier: MIT
import GPSLogModel

/// CSV (RFC 4180) with a header row, one row per entry: track points, marks and heading changes (`kind`). Column
/// names are the ones GPSBabel's unicsv and GDAL recognise (`latitude`, `longitude`, `altitude`, `time` in ISO
/// 8601 UTC, `speed`, `course`, `name`, `hdop`, ...).
///
/// Text cells are neutralised against formula injection (OWASP's "CSV Injection"): a session name, label, address
/// or id that starts with `=`, `+`, `-`, `@`, a tab or a CR (a spreadsheet would run `=HYPERLINK(...)` from a phone)
/// gets a `'` in front and is quoted; so does one that starts with `'`, so that gpslog's import can take exactly one
/// quote off again. Number columns are never touched: a longitude of `-4.5` stays a number.
public struct CSVWriter: TrackWriter {
    /// The header, in order; an import that finds exactly these knows the file for gpslog's own.
    public static let columns = [
        "session", "session_name", "kind", "time", "latitude", "longitude", "altitude", "speed", "course", "heading",
        "horizontal_accuracy", "vertical_accuracy", "sat", "hdop", "vdop", "pdop", "fix", "instance_count", "name",
        "address", "entry_id",
    ]

    /// A CSV writer; it has no options.
    public init() {}

    /// Writes the header and every entry of every session to output 0.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        let out = try outputs.open(0)
        try out.write(Self.columns.joined(separator: ",") + "\r\n")
        for s in sessions {
            try s.forEachEntry { e in
                try out.append { b in
                    func field(_ text: String?) {
                        b.append(UInt8(ascii: ","))
                        if let text { Self.appendText(text, to: &b) }
                    }
                    func integer(_ v: Int?) {
                        b.append(UInt8(ascii: ","))
                        if let v { b.append(contentsOf: String(v).utf8) }
                    }
                    func number(_ v: Double?, _ places: Int) {
                        b.append(UInt8(ascii: ","))
                        if let v { DecimalText.append(v, places: places, to: &b) }
                    }
                    Self.appendText(s.session.id, to: &b)
                    field(s.session.name)
                    field(e.isHeadingChanged ? "heading" : e.marked ? "mark" : "track")
                    b.append(UInt8(ascii: ","))
                    e.time.appendISO8601(to: &b)
                    number(e.latitude, Precision.coordinate)
                    number(e.longitude, Precision.coordinate)
                    number(e.altitude, Precision.altitude)
                    number(e.speed, Precision.speed)
                    number(e.course, Precision.angle)
                    number(e.heading, Precision.angle)
                    number(e.horizontalAccuracy, Precision.accuracy)
                    number(e.verticalAccuracy, Precision.accuracy)
                    integer(e.satellites)
                    number(e.hdop, Precision.dop)
                    number(e.vdop, Precision.dop)
                    number(e.pdop, Precision.dop)
                    field(e.fixMode.map { $0 == .threeD ? "3d" : "2d" })
                    integer(e.instanceCount)
                    field(e.label)
                    field(e.address)
                    field(e.id)
                    b.append(contentsOf: [13, 10])
                }
            }
        }
        try out.commit()
    }

    /// The first bytes that make a spreadsheet read a cell as a formula (OWASP: `=`, `+`, `-`, `@`, tab, CR), and
    /// `'`, the neutralising prefix itself (so that it can be taken off again without doubt).
    static func needsNeutralising(_ first: UInt8) -> Bool {
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 9, 13, UInt8(ascii: "'"):
            true
        default: false
        }
    }

    /// A text cell: `'` in front and quoted when it starts as a formula would (see `needsNeutralising`), else as
    /// `appendField` writes it.
    static func appendText(_ text: String, to b: inout [UInt8]) {
        guard let first = text.utf8.first, needsNeutralising(first) else {
            appendField(text, to: &b)
            return
        }
        b.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: "'")])
        for c in text.utf8 {
            if c == UInt8(ascii: "\"") { b.append(c) }
            b.append(c)
        }
        b.append(UInt8(ascii: "\""))
    }

    /// A field, quoted when it holds a comma, quote, CR or LF (quotes doubled), per RFC 4180.
    static func appendField(_ text: String, to b: inout [UInt8]) {
        let needsQuotes = text.utf8.contains {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13
        }
        guard needsQuotes else {
            b.append(contentsOf: text.utf8)
            return
        }
        b.append(UInt8(ascii: "\""))
        for c in text.utf8 {
            if c == UInt8(ascii: "\"") { b.append(c) }
            b.append(c)
        }
        b.append(UInt8(ascii: "\""))
    }
}
