// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// `EntryRows.Extras`: the Entries columns that few rows use, as one JSON object under short keys (see
/// `Schema/021_lean_rows.sql`), NULL when a row has none of them. Written here; read back by `read` (the Store) and
/// by SQLite's `json_extract` (the Entries view, and a track's segment starts).
enum EntryExtras {
    /// The columns Extras holds, in the order they are written.
    static let columns = [
        "Heading", "HeadingTimeStamp", "Label", "SpeedAccuracy", "CourseAccuracy", "Motion", "BatteryState",
        "BatteryLevel", "DeviceID", "Wifi", "StartsSegment", "Monitoring", "ReportTrigger", "InRegions", "Tag", "IsPOI",
    ]

    /// Each column's key in Extras (the schema's table): a few bytes, where the column's name would add 10 to 20 to
    /// each of serve's Overland and OwnTracks rows.
    static let keys: [String: String] = [
        "Heading": "h", "HeadingTimeStamp": "ht", "Label": "l", "SpeedAccuracy": "sa", "CourseAccuracy": "ca",
        "Motion": "m", "BatteryState": "bs", "BatteryLevel": "bl", "DeviceID": "d", "Wifi": "w", "StartsSegment": "ss",
        "Monitoring": "mo", "ReportTrigger": "t", "InRegions": "r", "Tag": "tg", "IsPOI": "poi",
        // Not a column of the Entries view: read by the Store only (`Entry.attributes`).
        "Attributes": "a",
    ]

    /// The column `name` as a SELECT reads it from EntryRows (a track's segment starts): NULL at once for a row
    /// without Extras (most rows), so reading a track costs no JSON call.
    static func select(_ name: String) -> String {
        "CASE WHEN Extras IS NOT NULL THEN json_extract(Extras, '$.\(keys[name]!)') END"
    }

    /// The attributes (`Entry.attributes`) as a SELECT reads them for a drawn track: NULL at once for a row whose
    /// Extras has none (`instr` is much cheaper than a JSON call, and serve's rows all have Extras).
    static let attributesColumn = """
        CASE WHEN Extras IS NOT NULL AND instr(Extras, '"a":{') > 0 THEN json_extract(Extras, '$.a') END
        """

    /// The SQL value of Extras with the flag `name` (StartsSegment, IsPOI) set, for an UPDATE of EntryRows.
    static func settingFlag(_ name: String) -> String {
        "json_set(COALESCE(Extras, '{}'), '$.\(keys[name]!)', 1)"
    }

    /// An entry's Extras, or nil when it has none of those columns (a plain track point: no allocation).
    static func json(of e: Entry) -> String? {
        guard
            e.heading != nil || e.headingTime != nil || e.label != nil || e.speedAccuracy != nil
                || e.courseAccuracy != nil || e.motion != nil || e.batteryState != nil || e.batteryLevel != nil
                || e.deviceID != nil || e.wifi != nil || e.startsSegment || e.monitoring != nil || e.trigger != nil
                || e.inRegions != nil || e.tag != nil || e.isPOI || e.attributes != nil
        else { return nil }
        var w = Writer()
        w.real("Heading", e.heading)
        w.integer("HeadingTimeStamp", e.headingTime?.milliseconds)
        w.text("Label", e.label)
        w.real("SpeedAccuracy", e.speedAccuracy)
        w.real("CourseAccuracy", e.courseAccuracy)
        w.raw("Motion", e.motion.map(Store.encodeMotion))
        w.text("BatteryState", e.batteryState?.rawValue)
        w.real("BatteryLevel", e.batteryLevel)
        w.text("DeviceID", e.deviceID)
        w.text("Wifi", e.wifi)
        w.integer("StartsSegment", e.startsSegment ? 1 : nil)
        w.integer("Monitoring", e.monitoring.map { Int64($0.rawValue) })
        w.text("ReportTrigger", e.trigger?.rawValue)
        w.raw("InRegions", e.inRegions.map(Store.encodeMotion))
        w.text("Tag", e.tag)
        w.integer("IsPOI", e.isPOI ? 1 : nil)
        w.strings("Attributes", e.attributes)
        return w.finish()
    }

    /// Extras from the 16 columns as migration 20 stored them (`columns`' order): the copy of `021_lean_rows.sql`.
    /// The flags count only when 1; a Motion or InRegions text that is not compact JSON is kept as a JSON string.
    static func json(ofColumns values: [SQLiteValue]) -> String? {
        var w = Writer()
        for (name, value) in zip(columns, values) {
            switch value {
            case .null, .blob: continue
            case .real(let v): w.real(name, v)
            case .integer(let v):
                if name == "StartsSegment" || name == "IsPOI" {
                    w.integer(name, v == 0 ? nil : v)
                } else if name == "Heading" || name == "SpeedAccuracy" || name == "CourseAccuracy"
                    || name == "BatteryLevel"
                {
                    w.real(name, Double(v))
                } else {
                    w.integer(name, v)
                }
            case .text(let text):
                if name == "Motion" || name == "InRegions" {
                    let compact = Store.decodeMotion(text).map(Store.encodeMotion) == text
                    compact ? w.raw(name, text) : w.text(name, text)
                } else {
                    w.text(name, text)
                }
            }
        }
        return w.finish()
    }

    /// Builds the JSON object text, member by member; a nil value writes nothing.
    struct Writer {
        private var out = "{"

        mutating func finish() -> String? { out == "{" ? nil : out + "}" }

        private mutating func key(_ name: String) {
            if out != "{" { out += "," }
            out += "\"" + EntryExtras.keys[name]! + "\":"
        }

        /// A REAL as the shortest digits that read back as the same Double; NaN (SQL's NULL) as nothing, an
        /// infinity as 9e999 (JSON has no word for it), -0 as 0 (a REAL column keeps no sign on zero).
        mutating func real(_ name: String, _ value: Double?) {
            guard let value, !value.isNaN else { return }
            key(name)
            if value.isInfinite {
                out += value > 0 ? "9e999" : "-9e999"
            } else {
                out += (value == 0 ? 0.0 : value).description
            }
        }

        mutating func integer(_ name: String, _ value: Int64?) {
            guard let value else { return }
            key(name)
            out += String(value)
        }

        /// JSON text as it is (a list gpslog wrote as a compact JSON array).
        mutating func raw(_ name: String, _ json: String?) {
            guard let json else { return }
            key(name)
            out += json
        }

        mutating func text(_ name: String, _ value: String?) {
            guard let value else { return }
            key(name)
            quoted(value)
        }

        /// An object of text values, its keys sorted (the same attributes give the same bytes).
        mutating func strings(_ name: String, _ values: [String: String]?) {
            guard let values, !values.isEmpty else { return }
            key(name)
            out += "{"
            for (i, k) in values.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                quoted(k)
                out += ":"
                quoted(values[k]!)
            }
            out += "}"
        }

        private mutating func quoted(_ value: String) {
            out += "\""
            for unit in value.unicodeScalars {
                switch unit {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where unit.value < 0x20:
                    let hex = String(unit.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(unit)
                }
            }
            out += "\""
        }
    }
}
