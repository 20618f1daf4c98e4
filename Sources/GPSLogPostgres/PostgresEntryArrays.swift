// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import PostgresNIO

/// Entries as one array per column, bound as 35 parameters of array text and spread into rows by `unnest`.
///
/// Why arrays: a multi-row `INSERT ... VALUES` of a thousand rows binds 34,000 parameters, and PostgreSQL spent
/// 28 ms parsing, planning and running each (35,000 rows/s at best); one `unnest` per batch is planned once whatever
/// its size. Text, not binary: postgres-nio encodes no array with NULLs in it. Numbers are written as Swift prints
/// them (the shortest form that reads back as the same double, so nothing is rounded), texts quoted.
struct PostgresEntryArrays {
    /// The columns after `session_id` and `received`, each with its array's element type and its value's SQL.
    static let columns: [(name: String, type: String, value: String)] = [
        ("id", "uuid", "u.id"), ("time", "int8", "gpslog_time(u.time)"), ("latitude", "float8", "u.latitude"),
        ("longitude", "float8", "u.longitude"), ("altitude", "float8", "u.altitude"),
        ("horizontal_accuracy", "float8", "u.horizontal_accuracy"),
        ("vertical_accuracy", "float8", "u.vertical_accuracy"), ("speed", "float8", "u.speed"),
        ("course", "float8", "u.course"), ("address", "text", "u.address"), ("marked", "bool", "u.marked"),
        ("label", "text", "u.label"), ("instance_count", "int4", "u.instance_count"),
        ("heading", "float8", "u.heading"), ("is_heading_changed", "bool", "u.is_heading_changed"),
        ("heading_time", "int8", "gpslog_time(u.heading_time)"), ("satellites", "int4", "u.satellites"),
        ("hdop", "float8", "u.hdop"), ("vdop", "float8", "u.vdop"), ("pdop", "float8", "u.pdop"),
        ("fix_mode", "int2", "u.fix_mode"), ("speed_accuracy", "float8", "u.speed_accuracy"),
        ("course_accuracy", "float8", "u.course_accuracy"), ("motion", "text", "u.motion::text[]"),
        ("battery_state", "text", "u.battery_state"), ("battery_level", "float8", "u.battery_level"),
        ("device_id", "text", "u.device_id"), ("wifi", "text", "u.wifi"),
        ("starts_segment", "bool", "u.starts_segment"), ("monitoring", "int2", "u.monitoring"),
        ("report_trigger", "text", "u.report_trigger"), ("in_regions", "text", "u.in_regions::text[]"),
        ("tag", "text", "u.tag"), ("is_poi", "bool", "u.is_poi"), ("attributes", "text", "u.attributes::jsonb"),
    ]

    /// The INSERT of session $1's entries (`received` $2), skipping rows already there (the same id, or for received
    /// rows the same session and time).
    static let insertSQL: String = {
        let names = columns.map(\.name).joined(separator: ", ")
        let arrays = columns.indices.map { "$\($0 + 3)::\(columns[$0].type)[]" }.joined(separator: ", ")
        return """
            INSERT INTO entries (session_id, received, \(names))
            SELECT $1::uuid, $2, \(columns.map(\.value).joined(separator: ", "))
            FROM unnest(\(arrays)) AS u(\(names))
            ON CONFLICT DO NOTHING
            """
    }()

    private var texts = [String](repeating: "{", count: columns.count)
    private var empty = true

    init<C: Collection<Entry>>(_ entries: C) {
        for e in entries { append(e) }
    }

    /// The two leading parameters and the 35 arrays.
    func bindings(session: String, received: Bool) -> PostgresBindings {
        var b = PostgresBindings(capacity: 2 + texts.count)
        b.append(session)
        b.append(received)
        for text in texts { b.append(text + "}") }
        return b
    }

    private mutating func append(_ e: Entry) {
        let cells: [String?] = [
            e.id, String(e.time.milliseconds), number(e.latitude), number(e.longitude), number(e.altitude),
            number(e.horizontalAccuracy), number(e.verticalAccuracy), number(e.speed), number(e.course),
            quoted(e.address), flag(e.marked), quoted(e.label), String(e.instanceCount), number(e.heading),
            flag(e.isHeadingChanged), e.headingTime.map { String($0.milliseconds) }, e.satellites.map(String.init),
            number(e.hdop), number(e.vdop), number(e.pdop), e.fixMode.map { String($0.rawValue) },
            number(e.speedAccuracy), number(e.courseAccuracy), quoted(e.motion.map(Self.arrayLiteral)),
            e.batteryState.map(\.rawValue), number(e.batteryLevel), quoted(e.deviceID), quoted(e.wifi),
            flag(e.startsSegment), e.monitoring.map { String($0.rawValue) }, e.trigger.map(\.rawValue),
            quoted(e.inRegions.map(Self.arrayLiteral)), quoted(e.tag), flag(e.isPOI),
            quoted(e.attributes.flatMap(Self.jsonObject)),
        ]
        for (i, cell) in cells.enumerated() {
            if !empty { texts[i] += "," }
            texts[i] += cell ?? "NULL"
        }
        empty = false
    }

    private func number(_ d: Double?) -> String? { d.map { "\($0)" } }
    private func flag(_ b: Bool) -> String { b ? "t" : "f" }

    /// A text element of an array literal: quoted, with `"` and `\` escaped (NUL, which PostgreSQL refuses, as U+FFFD).
    private func quoted(_ s: String?) -> String? {
        guard let s = PostgresRows.text(s) else { return nil }
        var out = "\""
        for c in s.unicodeScalars {
            if c == "\"" || c == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(c)
        }
        return out + "\""
    }

    /// Attributes as a JSON object (keys sorted), for the jsonb column; NUL, which jsonb refuses, as U+FFFD.
    static func jsonObject(_ attributes: [String: String]) -> String? {
        guard !attributes.isEmpty else { return nil }
        var clean: [String: String] = [:]
        for (key, value) in attributes { clean[PostgresRows.text(key) ?? key] = PostgresRows.text(value) ?? value }
        guard let data = try? JSONSerialization.data(withJSONObject: clean, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A list of strings as a text[] literal (`{"driving","stationary"}`), itself sent as one quoted element.
    static func arrayLiteral(_ list: [String]) -> String {
        var out = "{"
        for (i, item) in list.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            for c in (PostgresRows.text(item) ?? "").unicodeScalars {
                if c == "\"" || c == "\\" { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(c)
            }
            out += "\""
        }
        return out + "}"
    }
}
