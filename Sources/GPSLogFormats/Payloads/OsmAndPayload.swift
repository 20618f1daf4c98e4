// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// One location of Traccar's "osmand" protocol (Traccar Client, OsmAnd's online tracking, GPSLogger's custom URL),
/// parsed and checked: the keys of a query string or an `application/x-www-form-urlencoded` body, as Traccar's
/// `OsmAndProtocolDecoder` reads them, or the JSON of Traccar Client 9 (`{"location":{...},"device_id":...}`).
/// A bad value throws `ImportError.invalidValue` naming its key.
public struct OsmAndLocation: Sendable {
    /// `id` or `deviceid` (`device_id` in the JSON): who sent it.
    public var device: String
    /// The location; `time` is the receive time when the request had no `timestamp`, as Traccar does.
    public var entry: Entry
    /// False when the app said the fix is not valid (`valid=false`): such a location is not stored.
    public var valid = true
    /// The keys gpslog has no column for, without the token's keys: kept as text in `entry.attributes`, as Traccar
    /// keeps them in a position's attributes.
    public var otherKeys: [String] { entry.attributes.map { $0.keys.sorted() } ?? [] }
    /// Other keys left out (over a bound, or not a string, number or boolean), each with why, its name cut and
    /// escaped: the location is stored without them. Refused whole, it would block a client that resends its
    /// positions in order behind it for ever.
    public var leftOut: [String] = []
}

/// Reading the osmand protocol: which requests carry a location, and their keys.
public enum OsmAndPayload {
    /// The most keys a request may carry: a phone sends about fifteen.
    public static let maxParameters = 64
    /// The longest value taken (a device id, a date; anything longer is not from a phone app): an attribute's bound.
    public static let maxValueLength = PointAttributes.maxValueLength
    /// The keys gpslog reads into the location's fields (any other is kept as an attribute).
    static let knownKeys: Set<String> = [
        "id", "deviceid", "valid", "timestamp", "lat", "lon", "location", "speed", "speed_mps", "bearing", "heading",
        "altitude", "accuracy", "hdop", "sat", "batt", "charge",
    ]
    /// The keys that carry the token on the URL: never kept, never shown.
    public static let credentialKeys: Set<String> = ["token", "access_token", "api_key"]
    /// 1 knot in metres per second: the protocol's `speed` is in knots.
    static let knot = 1852.0 / 3600.0

    /// Whether `parameters` are a location as Traccar recognises one: a device (`id` or `deviceid`) and a position
    /// (`lat` and `lon`, or `location`). A GET without them is the web view's.
    public static func isLocation(_ parameters: [(key: String, value: String)]) -> Bool {
        let keys = Set(parameters.map(\.key))
        return (keys.contains("id") || keys.contains("deviceid"))
            && (keys.contains("lat") || keys.contains("lon") || keys.contains("location"))
    }

    /// The key-value pairs of a query string or a form body (`+` is a space, `%XX` a byte of UTF-8).
    /// - Throws: `ImportError` when there are more than `maxParameters` pairs or one is not valid percent-encoding.
    public static func parameters(_ text: Substring, source: String) throws -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard pairs.count < maxParameters else {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: "parameters", value: "more than \(maxParameters) keys")
            }
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ s: Substring) throws -> String {
                guard let text = s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                    throw ImportError.invalidValue(
                        file: source, line: 0, field: String(pair[0]).truncated(to: 40), value: String(s))
                }
                return text
            }
            let key = try decoded(pair[0])
            let value = pair.count > 1 ? try decoded(pair[1]) : ""
            pairs.append((key, value))
        }
        return pairs
    }

    /// Reads the keys of one request. Empty values count as absent (GPSLogger sends `hdop=` without a fix's DOP).
    /// - Parameters:
    ///   - parameters: the keys of the URL, then those of the body.
    ///   - source: the request, named in errors.
    ///   - now: the time taken when the request has no `timestamp` (Traccar's rule).
    /// - Returns: the location, its device, and the keys not kept.
    /// - Throws: `ImportError.invalidValue` naming the key of a bad value, or the missing `id`, `lat` or `lon`.
    public static func location(
        _ parameters: [(key: String, value: String)], source: String, now: Timestamp
    ) throws -> OsmAndLocation {
        var device: String?
        var lat: Double?
        var lon: Double?
        var time: Timestamp?
        var e = Entry(id: "", latitude: 0, longitude: 0, time: now)
        var valid = true
        var others: [String: String] = [:]
        var leftOut: [String] = []
        func bad(_ key: String, _ value: String, _ why: String = "") -> ImportError {
            guard !why.isEmpty else {
                return .invalidValue(file: source, line: 0, field: key.truncated(to: 40), value: value)
            }
            // The reason after the quoted value: `lat '952.4' is not valid (not in -90.0...90.0)`.
            return .malformed(
                file: source, line: 0,
                reason: "\(key.truncated(to: 40).visible) '\(value.truncated(to: 120).visible)' is not valid\(why)")
        }
        func number(_ key: String, _ value: String, _ range: ClosedRange<Double>? = nil) throws -> Double {
            guard let v = Double(value), v.isFinite else { throw bad(key, value, " (not a number)") }
            if let range, !range.contains(v) { throw bad(key, value, " (not in \(range))") }
            return v
        }
        for (key, value) in parameters where !value.isEmpty && !credentialKeys.contains(key) {
            // A long value of a key gpslog reads is refused; of another key, left out (`keep`).
            guard value.utf8.count <= maxValueLength || !knownKeys.contains(key) else {
                throw bad(key, String(value.prefix(40)), "... (longer than \(maxValueLength) bytes)")
            }
            switch key {
            case "id", "deviceid": device = value
            case "valid": valid = !["false", "0"].contains(value.lowercased())
            case "timestamp": time = try timestamp(value, source: source)
            case "lat": lat = try number(key, value, -90...90)
            case "lon": lon = try number(key, value, -180...180)
            case "location":
                let parts = value.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw bad(key, value, " (not LAT,LON)") }
                lat = try number(key, String(parts[0]), -90...90)
                lon = try number(key, String(parts[1]), -180...180)
            // Traccar's speed is in knots; `speed_mps` is gpslog's key for apps that send metres per second.
            case "speed": e.speed = try number(key, value, 0...1e5) * knot
            case "speed_mps": e.speed = try number(key, value, 0...1e5)
            case "bearing", "heading": e.course = Geo.normalizedDegrees(try number(key, value, -360...360))
            case "altitude": e.altitude = try number(key, value, -1e5...1e6)
            case "accuracy": e.horizontalAccuracy = try number(key, value, 0...1e7)
            case "hdop": e.hdop = try number(key, value, 0...1e4)
            case "sat": e.satellites = Int(try number(key, value, 0...1000))
            // Percent, as Traccar keeps it; gpslog keeps 0...1.
            case "batt": e.batteryLevel = try number(key, value, 0...100) / 100
            case "charge": e.batteryState = ["true", "1"].contains(value.lowercased()) ? .charging : .unplugged
            default: PointAttributes.keep(key, value, in: &others, leftOut: &leftOut)
            }
        }
        guard let device, !device.isEmpty else { throw bad("id", "", "(no id or deviceid)") }
        guard device.utf8.count <= 128 else { throw bad("id", String(device.prefix(40)), "... (longer than 128)") }
        guard let lat, let lon else { throw bad(lat == nil ? "lat" : "lon", "", "(missing)") }
        try PayloadJSON.position(latitude: lat, longitude: lon, field: "lat, lon", source: source, line: 0)
        (e.latitude, e.longitude) = (lat, lon)
        if let time { e.time = time }
        e.deviceID = device
        e.attributes = others.isEmpty ? nil : others
        return OsmAndLocation(device: device, entry: e, valid: valid, leftOut: leftOut)
    }

    /// Traccar's `timestamp`: whole seconds since 1970 below 2^31, else milliseconds; or ISO 8601; or
    /// `yyyy-MM-dd HH:mm:ss` (taken as UTC). Between 1980 and tomorrow.
    static func timestamp(_ value: String, source: String) throws -> Timestamp {
        var time: Timestamp?
        if let n = Int64(value), n >= 0 {
            time = n < Int64(Int32.max) ? Timestamp(milliseconds: n * 1000) : Timestamp(milliseconds: n)
        } else {
            time = Timestamp(iso8601: value)
        }
        guard let time else {
            throw ImportError.invalidValue(file: source, line: 0, field: "timestamp", value: value)
        }
        return try PayloadJSON.plausible(
            time, in: TimeWindow.current, field: "timestamp", value: value, source: source, line: 0)
    }

    // MARK: - Traccar Client 9's JSON

    /// Whether a JSON body is Traccar Client's (`location` and `device_id` at the top): tells it from Overland's
    /// and OwnTracks' without decoding it twice.
    public static func isTraccarJSON(_ object: [String: Any]) -> Bool {
        object["location"] != nil && object["device_id"] != nil
    }

    /// Reads Traccar Client 9's body: the transistorsoft background-geolocation `location` and a `device_id`.
    /// `coords.speed` is in metres per second; -1 means unknown, as on iOS and Android.
    public static func location(json data: Data, source: String) throws -> OsmAndLocation {
        let body = try PayloadJSON.decode(TraccarBody.self, from: data, source: source, line: 0)
        let c = body.location.coords
        guard !body.deviceID.isEmpty, body.deviceID.utf8.count <= 128 else {
            throw ImportError.invalidValue(
                file: source, line: 0, field: "device_id", value: String(body.deviceID.prefix(40)))
        }
        try PayloadJSON.position(
            latitude: c.latitude, longitude: c.longitude, field: "location.coords", source: source, line: 0)
        guard let time = Timestamp(iso8601: body.location.timestamp.prefix(64)) else {
            throw ImportError.invalidValue(
                file: source, line: 0, field: "location.timestamp", value: body.location.timestamp)
        }
        _ = try PayloadJSON.plausible(
            time, in: TimeWindow.current, field: "location.timestamp", value: body.location.timestamp,
            source: source, line: 0)
        func known(_ v: Double?) -> Double? { v.flatMap { $0 < 0 || !$0.isFinite ? nil : $0 } }
        var e = Entry(id: "", latitude: c.latitude, longitude: c.longitude, time: time)
        e.horizontalAccuracy = known(c.accuracy)
        e.speed = known(c.speed)
        e.course = known(c.heading).map { Geo.normalizedDegrees($0) }
        e.altitude = c.altitude.flatMap { $0.isFinite ? $0 : nil }
        e.batteryLevel = known(body.location.battery?.level).map { min($0, 1) }
        e.batteryState = body.location.battery?.isCharging.map { $0 ? .charging : .unplugged }
        e.motion = body.location.activity?.type.flatMap { $0.isEmpty ? nil : [String($0.prefix(40))] }
        e.deviceID = body.deviceID
        // As Traccar keeps them: `extras`' members, and what has no field here, as attributes.
        var attributes: [String: String] = [:]
        var leftOut: [String] = []
        for (key, value) in (body.location.extras ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let text = value.text {
                PointAttributes.keep(key, text, in: &attributes, leftOut: &leftOut)
            } else {
                leftOut.append("'\(key.truncated(to: 40).visible)' (an extras value is a string, number or boolean)")
            }
        }
        let l = body.location
        for (key, value) in [("event", l.event), ("odometer", l.odometer?.text), ("motion", l.isMoving?.text)] {
            if let value { PointAttributes.keep(key, value, in: &attributes, leftOut: &leftOut) }
        }
        e.attributes = attributes.isEmpty ? nil : attributes
        return OsmAndLocation(device: body.deviceID, entry: e, leftOut: leftOut)
    }

    /// Traccar Client 9's body, typed: a number must be a number.
    struct TraccarBody: Decodable {
        var location: Location
        var deviceID: String
        private enum CodingKeys: String, CodingKey {
            case location
            case deviceID = "device_id"
        }
        struct Location: Decodable {
            var timestamp: String
            var coords: Coords
            var battery: Battery?
            var activity: Activity?
            var event: String?
            var odometer: Scalar?
            var isMoving: Scalar?
            var extras: [String: Scalar]?
            private enum CodingKeys: String, CodingKey {
                case timestamp, coords, battery, activity, event, odometer, extras
                case isMoving = "is_moving"
            }
        }
        /// An `extras` value: a string, number or boolean, kept as its text; nil for an object, array or null
        /// (left out).
        struct Scalar: Decodable {
            var text: String?
            init(from decoder: any Decoder) throws {
                let c = try decoder.singleValueContainer()
                if let b = try? c.decode(Bool.self) {
                    text = b ? "true" : "false"
                } else if let n = try? c.decode(Double.self) {
                    text = PointAttributes.text(n)
                } else {
                    text = try? c.decode(String.self)
                }
            }
        }
        struct Coords: Decodable {
            var latitude: Double
            var longitude: Double
            var accuracy: Double?
            var speed: Double?
            var heading: Double?
            var altitude: Double?
        }
        struct Battery: Decodable {
            var level: Double?
            var isCharging: Bool?
            private enum CodingKeys: String, CodingKey {
                case level
                case isCharging = "is_charging"
            }
        }
        struct Activity: Decodable {
            var type: String?
        }
    }
}
