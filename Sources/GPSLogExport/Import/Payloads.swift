// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// An Overland batch body (`{"locations":[Feature, ...], "trip":{...}}`), parsed and checked: what `import` reads
/// from a file and `serve` from a POST. Features without a Point geometry (Overland's app-lifecycle records) are
/// skipped; CoreLocation's -1 means unknown. A bad value throws `ImportError.invalidValue` naming its field.
public struct OverlandPayload: Sendable {
    /// The locations, in payload order, with empty ids.
    public var entries: [Entry] = []
    /// `trip.mode`, when the payload carries a trip.
    public var mode: TripMode?
    /// `trip.start`, when the payload carries a trip.
    public var tripStart: Timestamp?

    /// - Parameter source: the file or request named in errors.
    public init(_ data: Data, source: String) throws {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw ImportError.malformed(file: source, line: 0, reason: "not JSON (\(error.localizedDescription))")
        }
        try self.init(object: root, source: source)
    }

    public init(object root: Any, source: String) throws {
        guard let body = root as? [String: Any], let locations = body["locations"] as? [Any] else {
            throw ImportError.unsupportedFormat(file: source, detail: "not an Overland batch: no \"locations\" array")
        }
        let trip = body["trip"] as? [String: Any]
        mode = (trip?["mode"] as? String).flatMap(TripMode.init(rawValue:))
        tripStart = (trip?["start"] as? String).flatMap { Timestamp(iso8601: $0) }
        for (i, item) in locations.enumerated() {
            let field = "locations[\(i)]"
            guard let feature = item as? [String: Any], let props = feature["properties"] as? [String: Any] else {
                throw ImportError.invalidValue(file: source, line: 0, field: field, value: "not a GeoJSON Feature")
            }
            guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "Point" else { continue }
            guard let c = geometry["coordinates"] as? [Any], c.count >= 2, let lon = JSONValue.double(c[0]), let lat = JSONValue.double(c[1]),
                abs(lat) <= 90, abs(lon) <= 180
            else { throw ImportError.invalidValue(file: source, line: 0, field: "\(field).geometry.coordinates", value: "\(geometry["coordinates"] ?? "")") }
            guard let ts = props["timestamp"] as? String, let time = Timestamp(iso8601: ts) else {
                throw ImportError.invalidValue(file: source, line: 0, field: "\(field).properties.timestamp", value: "\(props["timestamp"] ?? "missing")")
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
    }
}

/// OwnTracks messages: what `import` reads line by line and `serve` from an HTTP-mode POST.
public enum OwnTracksMessage {
    /// The location in an OwnTracks message, nil for other `_type`s (transition, waypoint, lwt...). `vel` is
    /// km/h, `tst` Unix seconds; `t: u` marks a user-triggered report as a mark. A bad value throws
    /// `ImportError.invalidValue` naming its field.
    public static func location(_ object: [String: Any], source: String, line: Int) throws -> Entry? {
        guard object["_type"] as? String == "location" else { return nil }
        guard let lat = JSONValue.double(object["lat"]), abs(lat) <= 90 else {
            throw ImportError.invalidValue(file: source, line: line, field: "lat", value: "\(object["lat"] ?? "missing")")
        }
        guard let lon = JSONValue.double(object["lon"]), abs(lon) <= 180 else {
            throw ImportError.invalidValue(file: source, line: line, field: "lon", value: "\(object["lon"] ?? "missing")")
        }
        guard let tst = JSONValue.double(object["tst"]), tst >= 0, tst < 1e11 else {
            throw ImportError.invalidValue(file: source, line: line, field: "tst", value: "\(object["tst"] ?? "missing")")
        }
        let time = Timestamp(milliseconds: Int64(tst) * 1000)
        var e = Entry(id: "", latitude: lat, longitude: lon, time: time)
        e.horizontalAccuracy = JSONValue.double(object["acc"]).flatMap { $0 > 0 ? $0 : nil }
        e.altitude = JSONValue.double(object["alt"])
        e.verticalAccuracy = JSONValue.double(object["vac"]).flatMap { $0 > 0 ? $0 : nil }
        e.speed = JSONValue.double(object["vel"]).flatMap { $0 >= 0 ? $0 / 3.6 : nil }
        e.course = JSONValue.double(object["cog"]).flatMap { $0 >= 0 ? Geo.normalizedDegrees($0) : nil }
        e.batteryLevel = JSONValue.double(object["batt"]).flatMap { $0 >= 0 && $0 <= 100 ? $0 / 100 : nil }
        if object["t"] as? String == "u" { e.marked = true }
        return e
    }
}
