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
    /// Overland's visit records (`action: visit`), with the device that sent each (nil: none named).
    public var visits: [(deviceID: String?, visit: Visit)] = []
    /// Records that are not locations and are not kept: the app's lifecycle actions (pause, resume, launch) and
    /// finished trips (`type: trip`).
    public var skippedRecords = 0

    /// - Parameters:
    ///   - data: the JSON body of one Overland batch.
    ///   - source: the file or request named in errors.
    /// - Throws: `ImportError` naming `source` (and the field of a bad value): not JSON, no `locations` array, a value
    ///   of the wrong type, a position or time that is not valid.
    public init(_ data: Data, source: String) throws {
        try self.init(body: Body.streamed(data) ?? Body.decoded(data, source: source), source: source)
    }

    /// Checks a decoded body: every location's position and time, by field.
    public init(body: Body, source: String) throws {
        guard let locations = body.locations else {
            throw ImportError.unsupportedFormat(file: source, detail: "not an Overland batch: no \"locations\" array")
        }
        mode = body.trip?.mode.flatMap(TripMode.init(rawValue:))
        tripStart = body.trip?.start.flatMap { Timestamp(iso8601: $0) }
        entries.reserveCapacity(locations.count)
        let window = TimeWindow.current
        for (i, feature) in locations.enumerated() {
            func field(_ rest: String) -> String { "locations[\(i)]." + rest }  // made only for a refusal
            guard let (lon, lat) = feature.point else { continue }
            try PayloadJSON.position(
                latitude: lat, longitude: lon, field: field("geometry.coordinates"), source: source, line: 0)
            let props = feature.properties
            // Records are told from locations as Overland's queue tells them: by `action`, and trips by `type`.
            if props.action == "visit", let arrival = props.arrivalDate.flatMap({ Timestamp(iso8601: $0) }) {
                let departure = props.departureDate.flatMap { Timestamp(iso8601: $0) }.flatMap {
                    $0 >= arrival ? $0 : nil
                }
                let visit = Visit(
                    latitude: lat, longitude: lon,
                    horizontalAccuracy: props.horizontalAccuracy.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } ?? 0,
                    arrival: arrival, departure: departure, name: props.name)
                visits.append((props.deviceID.flatMap { $0.isEmpty ? nil : $0 }, visit))
                continue
            }
            if props.action != nil || props.type == "trip" {
                skippedRecords += 1
                continue
            }
            guard let time = Timestamp(iso8601: props.timestamp) else {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: field("properties.timestamp"), value: props.timestamp)
            }
            _ = try PayloadJSON.plausible(
                time, in: window, field: field("properties.timestamp"), value: props.timestamp, source: source, line: 0)
            func known(_ v: Double?) -> Double? { v.flatMap { $0 < 0 || !$0.isFinite ? nil : $0 } }
            var e = Entry(id: "", latitude: lat, longitude: lon, time: time)
            e.altitude = props.altitude.flatMap { $0.isFinite ? $0 : nil }
            e.speed = known(props.speed)
            e.course = known(props.course).map { Geo.normalizedDegrees($0) }
            e.horizontalAccuracy = known(props.horizontalAccuracy)
            e.verticalAccuracy = known(props.verticalAccuracy)
            e.speedAccuracy = known(props.speedAccuracy)
            e.courseAccuracy = known(props.courseAccuracy)
            e.motion = props.motion?.isEmpty == false ? props.motion : nil
            e.batteryState = props.batteryState.flatMap(BatteryState.init(rawValue:)).flatMap {
                $0 == .unknown ? nil : $0
            }
            e.batteryLevel = known(props.batteryLevel).map { min($0, 1) }
            e.deviceID = props.deviceID.flatMap { $0.isEmpty ? nil : $0 }
            e.wifi = props.wifi.flatMap { $0.isEmpty ? nil : $0 }
            entries.append(e)
        }
    }

    /// The body as JSON carries it, typed: a number must be a number.
    public struct Body: Decodable, Sendable {
        /// `locations`; nil when the body has none (not an Overland batch).
        public var locations: [Feature]?
        /// `trip`, when the app sent one.
        public var trip: Trip?
    }

    /// The body's `trip`: the running trip's mode and start.
    public struct Trip: Decodable, Sendable {
        /// `mode`, as Overland names it (`bicycle`, ...).
        public var mode: String?
        /// `start`, ISO 8601.
        public var start: String?
    }

    /// A GeoJSON Feature; `point` is (longitude, latitude) for a Point geometry, nil for any other.
    public struct Feature: Decodable, Sendable {
        /// (longitude, latitude), degrees.
        public var point: (Double, Double)?
        /// The feature's `properties`.
        public var properties: Properties

        private enum Keys: String, CodingKey { case geometry, properties }

        init(point: (Double, Double)?, properties: Properties) {
            self.point = point
            self.properties = properties
        }
        private enum GeometryKeys: String, CodingKey { case type, coordinates }

        /// Reads `properties`, and `geometry` only when it is a Point.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            properties = try c.decode(Properties.self, forKey: .properties)
            guard c.contains(.geometry), try !c.decodeNil(forKey: .geometry) else { return }
            let g = try c.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
            // Only a Point is a location; other geometries (and their nested coordinates) are not read.
            guard try g.decodeIfPresent(String.self, forKey: .type) == "Point" else { return }
            let coordinates = try g.decode([Double].self, forKey: .coordinates)
            guard coordinates.count >= 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .coordinates, in: g,
                    debugDescription: "\(coordinates): a Point needs longitude and latitude")
            }
            point = (coordinates[0], coordinates[1])
        }
    }

    /// The properties gpslog reads; others are ignored.
    public struct Properties: Decodable, Sendable {
        /// `timestamp`, ISO 8601.
        public var timestamp: String
        /// `altitude`, metres.
        public var altitude: Double?
        /// `speed`, metres per second; -1: unknown.
        public var speed: Double?
        /// `course`, degrees true; -1: unknown.
        public var course: Double?
        /// `horizontal_accuracy`, metres; -1: unknown.
        public var horizontalAccuracy: Double?
        /// `vertical_accuracy`, metres; -1: unknown.
        public var verticalAccuracy: Double?
        /// `speed_accuracy`, metres per second; -1: unknown.
        public var speedAccuracy: Double?
        /// `course_accuracy`, degrees; -1: unknown.
        public var courseAccuracy: Double?
        /// `battery_level`, 0...1.
        public var batteryLevel: Double?
        /// `motion`, e.g. `["driving","stationary"]`.
        public var motion: [String]?
        /// `battery_state`: `unknown`, `charging`, `full` or `unplugged`.
        public var batteryState: String?
        /// `device_id`.
        public var deviceID: String?
        /// `wifi`: the Wi-Fi network's name.
        public var wifi: String?
        /// Set on Overland's records that are not locations (`paused_location_updates`, `visit`, ...).
        public var action: String?
        /// `trip` on Overland's finished-trip record.
        public var type: String?
        /// A visit record's arrival and departure (null while still there).
        public var arrivalDate: String?
        /// `departure_date`.
        public var departureDate: String?
        /// A visit record's `name`: the name given to the place (gpslog's own property; the store cuts it to
        /// `TextLimit.placeName`). Other apps may put anything under `name` in a location, so a value that is not
        /// text is no name rather than a refused payload.
        public var name: String? { nameValue?.text }
        /// `name` as read: nil when missing or null.
        var nameValue: LooseText?

        init(timestamp: String) {
            self.timestamp = timestamp
        }

        private enum CodingKeys: String, CodingKey {
            case timestamp, altitude, speed, course, motion, wifi, action, type
            case nameValue = "name"
            case arrivalDate = "arrival_date"
            case departureDate = "departure_date"
            case horizontalAccuracy = "horizontal_accuracy"
            case verticalAccuracy = "vertical_accuracy"
            case speedAccuracy = "speed_accuracy"
            case courseAccuracy = "course_accuracy"
            case batteryLevel = "battery_level"
            case batteryState = "battery_state"
            case deviceID = "device_id"
        }
    }
}

/// A JSON value read as text when it is a string, and as nothing otherwise.
struct LooseText: Decodable, Sendable {
    let text: String?

    init(text: String?) {
        self.text = text
    }

    init(from decoder: any Decoder) throws {
        text = try? decoder.singleValueContainer().decode(String.self)
    }
}
