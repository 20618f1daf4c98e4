// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore

/// Imports Overland batch bodies (`{"locations":[Feature, ...]}`, as the app POSTs them and `export --format
/// overland` writes them): one session per file; features without a Point geometry (Overland's app-lifecycle
/// records) are skipped; CoreLocation's -1 means unknown; `trip` gives the mode and start.
public struct OverlandImporter {
    public var name: String?
    public init() {}

    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ImportError.unreadable(file: path, reason: "no such readable file") }
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw ImportError.malformed(file: path, line: 0, reason: "not JSON (\(error.localizedDescription))")
        }
        guard let body = root as? [String: Any], let locations = body["locations"] as? [Any] else {
            throw ImportError.unsupportedFormat(file: path, detail: "not an Overland batch: no \"locations\" array")
        }
        let trip = body["trip"] as? [String: Any]
        let mode = (trip?["mode"] as? String).flatMap(TripMode.init(rawValue:))
        var entries: [Entry] = []
        for (i, item) in locations.enumerated() {
            let field = "locations[\(i)]"
            guard let feature = item as? [String: Any], let props = feature["properties"] as? [String: Any] else {
                throw ImportError.invalidValue(file: path, line: 0, field: field, value: "not a GeoJSON Feature")
            }
            guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "Point" else { continue }
            guard let c = geometry["coordinates"] as? [Any], c.count >= 2, let lon = JSONValue.double(c[0]), let lat = JSONValue.double(c[1]),
                abs(lat) <= 90, abs(lon) <= 180
            else { throw ImportError.invalidValue(file: path, line: 0, field: "\(field).geometry.coordinates", value: "\(geometry["coordinates"] ?? "")") }
            guard let ts = props["timestamp"] as? String, let time = Timestamp(iso8601: ts) else {
                throw ImportError.invalidValue(file: path, line: 0, field: "\(field).properties.timestamp", value: "\(props["timestamp"] ?? "missing")")
            }
            func known(_ key: String) -> Double? { JSONValue.double(props[key]).flatMap { $0 < 0 ? nil : $0 } }
            var e = Entry(id: "", latitude: lat, longitude: lon, time: time)
            e.altitude = JSONValue.double(props["altitude"])
            e.speed = known("speed")
            e.course = known("course").map { Geo.normalizedDegrees($0) }
            e.horizontalAccuracy = known("horizontal_accuracy")
            e.verticalAccuracy = known("vertical_accuracy")
            e.speedAccuracy = known("speed_accuracy")
            e.courseAccuracy = known("course_accuracy")
            e.motion = props["motion"] as? [String]
            if e.motion == [] { e.motion = nil }
            e.batteryState = (props["battery_state"] as? String).flatMap(BatteryState.init(rawValue:)).flatMap { $0 == .unknown ? nil : $0 }
            e.batteryLevel = known("battery_level").map { min($0, 1) }
            e.deviceID = (props["device_id"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            e.wifi = (props["wifi"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            entries.append(e)
        }
        guard let first = entries.map(\.time).min() else { throw ImportError.noFixes(file: path, detail: "no location with a Point geometry") }
        let start = (trip?["start"] as? String).flatMap { Timestamp(iso8601: $0) }.map { min($0, first) } ?? first
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try store.write {
            var sink = try EntrySink(store: store, name: name ?? stem, start: start, mode: mode, preferredID: nil)
            for var e in entries.sorted(by: { $0.time < $1.time }) {
                e.id = sink.makeID(e.time)
                try sink.add(e)
            }
            return [try sink.finish()]
        }
    }
}

/// Imports OwnTracks location messages: JSON lines, or the OwnTracks Recorder's `.rec` files (`time TAB topic TAB
/// JSON`), streamed line by line. Other `_type`s (transition, waypoint, lwt) are skipped; `t: u` marks a point as
/// a user mark; `vel` is km/h.
public struct OwnTracksImporter {
    public var name: String?
    public init() {}

    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ImportError.unreadable(file: path, reason: "no such readable file") }
        defer { try? handle.close() }
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try store.write {
            var sink: EntrySink?
            var lineNumber = 0
            var buffer = Data()
            func handleLine(_ raw: Data) throws {
                lineNumber += 1
                guard let brace = raw.firstIndex(of: UInt8(ascii: "{")) else { return }
                let json = raw[brace...]
                guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                    throw ImportError.malformed(file: path, line: lineNumber, reason: "not a JSON object")
                }
                guard object["_type"] as? String == "location" else { return }
                guard let lat = JSONValue.double(object["lat"]), abs(lat) <= 90 else {
                    throw ImportError.invalidValue(file: path, line: lineNumber, field: "lat", value: "\(object["lat"] ?? "missing")")
                }
                guard let lon = JSONValue.double(object["lon"]), abs(lon) <= 180 else {
                    throw ImportError.invalidValue(file: path, line: lineNumber, field: "lon", value: "\(object["lon"] ?? "missing")")
                }
                guard let tst = JSONValue.double(object["tst"]) else {
                    throw ImportError.invalidValue(file: path, line: lineNumber, field: "tst", value: "\(object["tst"] ?? "missing")")
                }
                let time = Timestamp(milliseconds: Int64(tst) * 1000)
                if sink == nil { sink = try EntrySink(store: store, name: name ?? stem, start: time, mode: nil, preferredID: nil) }
                var e = Entry(id: sink!.makeID(time), latitude: lat, longitude: lon, time: time)
                e.horizontalAccuracy = JSONValue.double(object["acc"]).flatMap { $0 > 0 ? $0 : nil }
                e.altitude = JSONValue.double(object["alt"])
                e.verticalAccuracy = JSONValue.double(object["vac"]).flatMap { $0 > 0 ? $0 : nil }
                e.speed = JSONValue.double(object["vel"]).flatMap { $0 >= 0 ? $0 / 3.6 : nil }
                e.course = JSONValue.double(object["cog"]).flatMap { $0 >= 0 ? Geo.normalizedDegrees($0) : nil }
                e.batteryLevel = JSONValue.double(object["batt"]).flatMap { $0 >= 0 && $0 <= 100 ? $0 / 100 : nil }
                if object["t"] as? String == "u" { e.marked = true }
                try sink!.add(e)
            }
            while true {
                let chunk = handle.readData(ofLength: 1 << 16)
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 10) {
                    try handleLine(buffer[buffer.startIndex..<newline])
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            if !buffer.isEmpty { try handleLine(buffer) }
            guard var open = sink else { throw ImportError.noFixes(file: path, detail: "no OwnTracks location message") }
            return [try open.finish()]
        }
    }
}

/// Numbers from JSONSerialization (NSNumber bridges to Double or Int).
enum JSONValue {
    static func double(_ v: Any?) -> Double? {
        if let d = v as? Double { return d.isFinite ? d : nil }
        if let i = v as? Int { return Double(i) }
        return nil
    }
}
