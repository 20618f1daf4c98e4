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
            guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "Point" else {
                continue
            }
            guard let c = geometry["coordinates"] as? [Any], c.count >= 2, let lon = JSONValue.double(c[0]),
                let lat = JSONValue.double(c[1]),
                abs(lat) <= 90, abs(lon) <= 180
            else {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: "\(field).geometry.coordinates",
                    value: "\(geometry["coordinates"] ?? "")")
            }
            guard let ts = props["timestamp"] as? String, let time = Timestamp(iso8601: ts) else {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: "\(field).properties.timestamp",
                    value: "\(props["timestamp"] ?? "missing")")
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
            e.batteryState = (props["battery_state"] as? String).flatMap(BatteryState.init(rawValue:)).flatMap {
                $0 == .unknown ? nil : $0
            }
            e.batteryLevel = known("battery_level").map { min($0, 1) }
            e.deviceID = (props["device_id"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            e.wifi = (props["wifi"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            entries.append(e)
        }
    }
}
