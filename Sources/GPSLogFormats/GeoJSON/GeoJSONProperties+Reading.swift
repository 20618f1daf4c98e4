// SPDX-License-Identifier: MIT
import GPSLogModel

extension GeoJSONProperties {
    private enum Field {
        case time(milliseconds: Bool)
        /// A name some writers give a point's time, and others something else: read when it is a time.
        case otherTime
        case speed(factor: Double)
        case battery(percent: Bool)
        case kind, name, label, address, session, track, segment, start, end, mode
        case altitude, course, horizontalAccuracy, verticalAccuracy, speedAccuracy
        case courseAccuracy, satellites, hdop, vdop, pdop, fix, batteryState, deviceID
        case wifi, motion
        case event, region, regionID, arrival, departure, entryID
    }

    // Matched in order by length and bytes: a few comparisons per key, no String made.
    private static let fields: [(key: StaticString, field: Field)] = [
        ("timestamp", .time(milliseconds: false)), ("time", .time(milliseconds: false)),
        ("isotst", .time(milliseconds: false)), ("tst", .time(milliseconds: false)),
        ("time_long", .time(milliseconds: true)), ("timestamp_ms", .time(milliseconds: true)),
        ("datetime", .otherTime), ("date_time", .otherTime), ("recorded_at", .otherTime), ("when", .otherTime),
        ("date", .otherTime),
        ("kind", .kind), ("name", .name), ("session_name", .name), ("label", .label), ("address", .address),
        ("addr", .address), ("desc", .address), ("description", .address), ("session", .session),
        ("track_fid", .track), ("track_seg_id", .segment), ("start", .start), ("end", .end), ("mode", .mode),
        ("altitude", .altitude), ("ele", .altitude), ("elevation", .altitude), ("alt", .altitude),
        ("speed", .speed(factor: 1)), ("vel", .speed(factor: 1 / 3.6)), ("course", .course), ("bearing", .course),
        ("cog", .course), ("horizontal_accuracy", .horizontalAccuracy), ("accuracy", .horizontalAccuracy),
        ("acc", .horizontalAccuracy), ("vertical_accuracy", .verticalAccuracy), ("vac", .verticalAccuracy),
        ("speed_accuracy", .speedAccuracy), ("course_accuracy", .courseAccuracy), ("sat", .satellites),
        ("satellites", .satellites), ("sats", .satellites), ("hdop", .hdop), ("vdop", .vdop), ("pdop", .pdop),
        ("fix", .fix), ("battery_level", .battery(percent: false)), ("batt", .battery(percent: true)),
        ("battery", .battery(percent: true)), ("battery_state", .batteryState), ("battery_status", .batteryState),
        ("device_id", .deviceID), ("wifi", .wifi), ("ssid", .wifi), ("motion", .motion),
        ("event", .event), ("region", .region), ("rid", .regionID), ("arrival", .arrival),
        ("departure", .departure), ("id", .entryID),
    ]

    /// Reads the value of the member whose key `json` has just read, when the key is one of these; false (the value
    /// not read) otherwise. A time that is not one, or not between 1980 and tomorrow, is refused with its path.
    mutating func read(_ json: inout JSONStreamReader, window: TimeWindow) throws -> Bool {
        guard let field = Self.fields.first(where: { json.textEquals($0.key) })?.field else { return false }
        let event = try json.next()
        if event == .objectStart || event == .arrayStart {
            if case .motion = field, event == .arrayStart {
                motion = try Self.strings(&json)
            } else {
                try json.skipRest()
            }
            return true
        }
        func number() -> Double? {
            switch event {
            case .number(let v): return v
            case .string: return ByteNumber.double(json.text)
            default: return nil
            }
        }
        func known(_ v: Double?) -> Double? { v.flatMap { $0 < 0 ? nil : $0 } }
        func text() -> String? {
            guard event == .string else { return nil }
            let s = json.string
            return s.isEmpty ? nil : s
        }
        switch field {
        case .time(let milliseconds):
            let t = try Self.time(event, &json, milliseconds: milliseconds, window: window)
            if time == nil { time = t }
        case .otherTime:
            // Not a time, or not a plausible one: not this point's time (the point is then untimed, and said so).
            if otherTime == nil, let t = try? Self.time(event, &json, milliseconds: false, window: window) {
                otherTime = t
            }
        case .start: start = try Self.time(event, &json, milliseconds: false, window: window)
        case .end: end = try Self.time(event, &json, milliseconds: false, window: window)
        case .kind: kind = text()
        case .name: name = name ?? text()
        case .label: label = text()
        case .address: address = address ?? text()
        case .session: session = text()
        case .track: track = text() ?? number().map { String($0) }
        case .segment: segment = text() ?? number().map { String($0) }
        case .mode: mode = text().flatMap { TripMode(rawValue: $0.lowercased()) }
        case .altitude: altitude = number()
        case .speed(let factor): speed = known(number()).map { $0 * factor }
        case .course: course = known(number()).map { Geo.normalizedDegrees($0) }
        case .horizontalAccuracy: horizontalAccuracy = known(number())
        case .verticalAccuracy: verticalAccuracy = known(number())
        case .speedAccuracy: speedAccuracy = known(number())
        case .courseAccuracy: courseAccuracy = known(number())
        case .satellites: satellites = number().flatMap { (0...1024).contains($0) ? Int($0) : nil }
        case .hdop: hdop = known(number())
        case .vdop: vdop = known(number())
        case .pdop: pdop = known(number())
        case .fix:
            switch text()?.lowercased() ?? number().map({ "\(Int($0))d" }) {
            case "2d": fixMode = .twoD
            case "3d": fixMode = .threeD
            default: break
            }
        case .battery(let percent): batteryLevel = known(number()).map { min(percent ? $0 / 100 : $0, 1) }
        case .batteryState:
            batteryState = text().flatMap { BatteryState(rawValue: $0.lowercased()) }.flatMap {
                $0 == .unknown ? nil : $0
            }
        case .deviceID: deviceID = text()
        case .wifi: wifi = text()
        case .motion: break  // not an array: not Overland's motion
        case .event: self.event = text().flatMap { RegionEvent(rawValue: $0) }
        case .region: region = text()
        case .regionID: regionID = text()
        case .entryID: entryID = text()
        case .arrival: arrival = try Self.time(event, &json, milliseconds: false, window: window)
        case .departure: departure = try Self.time(event, &json, milliseconds: false, window: window)
        }
        return true
    }

    /// A time value: ISO 8601 text, or Unix seconds as a number or text (milliseconds when `milliseconds`, or from
    /// 1e11 on: no plausible time has that many seconds); null is none.
    static func time(
        _ event: JSONStreamReader.Event, _ json: inout JSONStreamReader, milliseconds: Bool, window: TimeWindow
    )
        throws -> Timestamp?
    {
        let t: Timestamp?
        let shown: String
        switch event {
        case .null: return nil
        case .string:
            shown = json.string
            t =
                json.text.count > 64
                ? nil
                : Timestamp(iso8601Bytes: json.text)
                    ?? (JSONNumberGrammar.matches(json.text) ? ByteNumber.double(json.text) : nil).flatMap {
                        unixTime($0, milliseconds: milliseconds)
                    }
        case .number(let v):
            shown = "\(v)"
            t = unixTime(v, milliseconds: milliseconds)
        default:
            shown = "\(event)"
            t = nil
        }
        guard let t else {
            throw ImportError.invalidValue(file: json.file, line: json.line, field: json.path, value: shown)
        }
        guard window.contains(t) else {
            throw ImportError.invalidValue(
                file: json.file, line: json.line, field: json.path, value: shown + " (outside 1980 to tomorrow)")
        }
        return t
    }

    /// Unix seconds (milliseconds when `milliseconds`, or from 1e11 on); nil past any time.
    private static func unixTime(_ v: Double, milliseconds: Bool) -> Timestamp? {
        let ms = milliseconds || abs(v) >= 1e11 ? v : v * 1000
        return abs(ms) < 1e15 ? Timestamp(milliseconds: Int64(ms.rounded())) : nil
    }

    /// An array of strings (Overland's `motion`); other values in it are skipped.
    private static func strings(_ json: inout JSONStreamReader) throws -> [String]? {
        var out: [String] = []
        while true {
            let e = try json.next()
            switch e {
            case .arrayEnd: return out.isEmpty ? nil : out
            case .string: if out.count < 16 { out.append(json.string) }
            case .objectStart, .arrayStart: try json.skipRest()
            default: break
            }
        }
    }
}
