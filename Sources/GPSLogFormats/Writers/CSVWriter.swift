// SPDX-License-Identifier: MIT
import GPSLogModel

/// CSV (RFC 4180) with a header row, one row per entry: track points, marks and heading changes (`kind`). Column
/// names are the ones GPSBabel's unicsv and GDAL recognise (`latitude`, `longitude`, `altitude`, `time` in ISO
/// 8601 UTC, `speed`, `course`, `name`, `hdop`, ...).
public struct CSVWriter: TrackWriter {
    public static let columns = [
        "session", "session_name", "kind", "time", "latitude", "longitude", "altitude", "speed", "course", "heading",
        "horizontal_accuracy", "vertical_accuracy", "sat", "hdop", "vdop", "pdop", "fix", "instance_count", "name",
        "address", "entry_id",
    ]

    public init() {}

    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        let out = try outputs.open(0)
        try out.write(Self.columns.joined(separator: ",") + "\r\n")
        for s in sessions {
            try s.forEachEntry { e in
                try out.append { b in
                    func field(_ text: String?) {
                        b.append(UInt8(ascii: ","))
                        if let text { Self.appendField(text, to: &b) }
                    }
                    func number(_ v: Double?, _ places: Int) {
                        b.append(UInt8(ascii: ","))
                        if let v { DecimalText.append(v, places: places, to: &b) }
                    }
                    Self.appendField(s.session.id, to: &b)
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
                    field(e.satellites.map(String.init))
                    number(e.hdop, Precision.dop)
                    number(e.vdop, Precision.dop)
                    number(e.pdop, Precision.dop)
                    field(e.fixMode.map { $0 == .threeD ? "3d" : "2d" })
                    field(String(e.instanceCount))
                    field(e.label)
                    field(e.address)
                    field(e.id)
                    b.append(contentsOf: [13, 10])
                }
            }
        }
        try out.commit()
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
