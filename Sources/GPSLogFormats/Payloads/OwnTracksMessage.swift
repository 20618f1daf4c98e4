// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// OwnTracks messages: what `import` reads line by line and `serve` from an HTTP-mode POST.
public enum OwnTracksMessage {
    /// One message as JSON carries it: its `_type`, `topic` and `tid`, and for a location the fields gpslog reads,
    /// typed (a number must be a JSON number).
    public struct Body: Decodable, Sendable {
        /// `_type`: `location`, `transition`, `waypoint`, ...
        public var type: String?
        /// `topic`, when the message carries it (`owntracks/USER/DEVICE`).
        public var topic: String?
        /// `tid`, the tracker id.
        public var tid: String?
        var location: Location?

        private enum Keys: String, CodingKey {
            case type = "_type"
            case topic, tid
        }

        /// Reads `_type`, `topic` and `tid`, and a location's fields.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            type = try c.decodeIfPresent(String.self, forKey: .type)
            topic = try? c.decodeIfPresent(String.self, forKey: .topic)
            tid = try? c.decodeIfPresent(String.self, forKey: .tid)
            // Transitions, waypoints, lwt...: their fields are not read.
            if type == "location" { location = try Location(from: decoder) }
        }

        /// A location whose `_type` may be missing (the Recorder's `ocat --fields` leaves it out).
        init(locationFrom decoder: any Decoder) throws {
            type = "location"
            let c = try decoder.container(keyedBy: Keys.self)
            topic = try? c.decodeIfPresent(String.self, forKey: .topic)
            tid = try? c.decodeIfPresent(String.self, forKey: .tid)
            location = try Location(from: decoder)
        }
    }

    struct Location: Decodable, Sendable {
        var lat: Double
        var lon: Double
        var tst: Double
        var acc, alt, vac, vel, cog, batt: Double?
        var t: String?
        var m: Int?
        var inregions: [String]?
        var tag: String?
        var poi: String?
    }

    /// The location in one message's JSON, nil for other `_type`s; a bad value throws `ImportError` naming its
    /// field and `line`.
    public static func location(_ data: Data, source: String, line: Int) throws -> Entry? {
        try location(PayloadJSON.decode(Body.self, from: data, source: source, line: line), source: source, line: line)
    }

    /// The location in a decoded message, nil for other `_type`s. `vel` is km/h, `tst` integer Unix seconds; `t: u`
    /// marks a user-triggered report as a mark. `t` and `m` are kept (`Entry.trigger`, `Entry.monitoring`) when they
    /// are values OwnTracks defines, and ignored when not.
    public static func location(_ body: Body, source: String, line: Int) throws -> Entry? {
        guard let l = body.location else { return nil }
        guard Geo.latitudeRange.contains(l.lat) else {
            throw ImportError.invalidValue(file: source, line: line, field: "lat", value: "\(l.lat.formatted)")
        }
        guard Geo.longitudeRange.contains(l.lon) else {
            throw ImportError.invalidValue(file: source, line: line, field: "lon", value: "\(l.lon.formatted)")
        }
        try PayloadJSON.position(latitude: l.lat, longitude: l.lon, field: "lat, lon", source: source, line: line)
        // tst is whole seconds in OwnTracks' format: 1.5 is refused, not cut to 1.
        guard l.tst.rounded() == l.tst, abs(l.tst) < 1e11 else {
            throw ImportError.invalidValue(file: source, line: line, field: "tst", value: "\(l.tst) (whole seconds)")
        }
        let time = try PayloadJSON.plausible(
            Timestamp(milliseconds: Int64(l.tst) * 1000), in: .current, field: "tst", value: "\(Int64(l.tst))",
            source: source,
            line: line)
        var e = Entry(id: "", latitude: l.lat, longitude: l.lon, time: time)
        e.horizontalAccuracy = l.acc.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        e.altitude = l.alt.flatMap { $0.isFinite ? $0 : nil }
        e.verticalAccuracy = l.vac.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        e.speed = l.vel.flatMap { $0 >= 0 && $0.isFinite ? $0 / 3.6 : nil }
        e.course = l.cog.flatMap { $0 >= 0 && $0.isFinite ? Geo.normalizedDegrees($0) : nil }
        e.batteryLevel = l.batt.flatMap { $0 >= 0 && $0 <= 100 ? $0 / 100 : nil }
        if l.t == "u" { e.marked = true }
        e.trigger = l.t.flatMap(ReportTrigger.init(rawValue:))
        e.monitoring = l.m.flatMap(MonitoringMode.init(rawValue:))
        e.tag = l.tag.flatMap { $0.isEmpty ? nil : $0.truncated(to: TextLimit.label) }
        if let poi = l.poi, !poi.isEmpty {
            // A POI is a mark whose label names the place (gpslog mark --poi).
            e.marked = true
            e.isPOI = true
            e.label = poi.truncated(to: TextLimit.label)
        }
        e.inRegions = l.inregions.flatMap {
            $0.isEmpty ? nil : $0.prefix(TextLimit.regionsPerEntry).map { $0.truncated(to: TextLimit.label) }
        }
        return e
    }
}

/// What `serve` receives, told apart and decoded in one pass: an Overland batch (`{"locations":...}`), an OwnTracks
/// message (`{"_type":...}`), or neither.
public enum ReceivedPayload: Decodable, Sendable {
    case overland(OverlandPayload.Body)
    case ownTracks(OwnTracksMessage.Body)
    case neither

    /// Tells the payload apart by its keys, then decodes it as that.
    public init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: JSONKey.self) else {
            self = .neither  // an array, a string...: not an object at all
            return
        }
        if c.contains(JSONKey("locations")) {
            self = .overland(try OverlandPayload.Body(from: decoder))
        } else if c.contains(JSONKey("_type")) {
            self = .ownTracks(try OwnTracksMessage.Body(from: decoder))
        } else {
            self = .neither
        }
    }

    /// Decodes a request body; a failure is an `ImportError` naming the field. An Overland batch is read by the
    /// streaming reader when it is sure of it (see OverlandPayload+Reading.swift), anything else by `JSONDecoder`.
    public init(_ data: Data, source: String) throws {
        if let body = OverlandPayload.Body.streamed(data) {
            self = .overland(body)
            return
        }
        self = try PayloadJSON.decode(ReceivedPayload.self, from: data, source: source, line: 0)
    }
}

extension Double {
    /// 500 rather than 500.0, as the payload most likely wrote it.
    fileprivate var formatted: String { rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
