// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// An OwnTracks message as `serve` stores it (MQTT or HTTP), every field typed and bounded.
public enum OwnTracksReceived: Sendable, Equatable {
    case location(Entry)
    case transition(ReceivedTransition)
    /// `_type: waypoint` (one) or `_type: waypoints` (a list).
    case waypoints([ReceivedWaypoint])
    /// `_type: lwt`: the broker says the device's connection was lost; `connected` is the lwt's `tst`, when that
    /// connection was made.
    case lastWill(connected: Timestamp)
    case card(DeviceCard)
    /// Any other `_type` (status, cmd, steps, encrypted, beacon...): nothing to store.
    case other(String)
}

extension OwnTracksMessage {
    /// The most waypoints one `waypoints` message may carry.
    public static let maxWaypoints = 1000
    /// The longest `rid` and `tid` taken.
    static let maxIDLength = 64

    /// Reads one message; a bad value throws `ImportError` naming `source` and the field (`waypoints[2].lat`).
    public static func received(_ data: Data, source: String) throws -> OwnTracksReceived {
        try received(PayloadJSON.decode(Body.self, from: data, source: source, line: 0), data: data, source: source)
    }

    /// Reads one message whose `body` is decoded already (`serve` over HTTP tells Overland and OwnTracks apart first);
    /// `line` is the file's line for `import` (0 for a received message).
    public static func received(_ body: Body, data: Data, source: String, line: Int = 0) throws -> OwnTracksReceived {
        guard let type = body.type else {
            throw ImportError.invalidValue(file: source, line: line, field: "_type", value: "missing")
        }
        let check = Check(source: source, line: line)
        switch type {
        case "location":
            guard let entry = try location(body, source: source, line: line) else { return .other(type) }
            return .location(entry)
        case "transition":
            return .transition(
                try check.transition(PayloadJSON.decode(TransitionBody.self, from: data, source: source, line: line)))
        case "waypoint":
            return .waypoints(
                [try check.waypoint(PayloadJSON.decode(WaypointBody.self, from: data, source: source, line: line))])
        case "waypoints":
            return .waypoints(
                try check.waypoints(
                    PayloadJSON.decode(WaypointsBody.self, from: data, source: source, line: line).waypoints ?? []))
        case "lwt":
            let lwt = try PayloadJSON.decode(LastWillBody.self, from: data, source: source, line: line)
            return .lastWill(connected: try check.time(lwt.tst, field: "tst"))
        case "card":
            return .card(try check.card(PayloadJSON.decode(CardBody.self, from: data, source: source, line: line)))
        default:
            return .other(type)
        }
    }

    // MARK: - The messages' fields, typed (a number must be a JSON number, a text a JSON string)

    struct TransitionBody: Decodable {
        var event: String
        var tst: Double
        var wtst: Double
        var lat: Double
        var lon: Double
        var acc: Double?
        var desc: String?
        var rid: String?
        var t: String?
    }

    struct WaypointBody: Decodable {
        var desc: String
        var tst: Double
        var lat: Double?
        var lon: Double?
        var rad: Double?
        var rid: String?
    }

    struct WaypointsBody: Decodable {
        var waypoints: [WaypointBody]?
    }

    struct LastWillBody: Decodable {
        var tst: Double
    }

    struct CardBody: Decodable {
        var name: String?
        var face: String?
        var tid: String?
    }

    /// The bounds, each refusal naming its field (and the file's line, for `import`).
    struct Check {
        var source: String
        var line = 0

        func refuse(_ field: String, _ value: String) -> ImportError {
            ImportError.invalidValue(file: source, line: line, field: field, value: value)
        }

        func waypoints(_ list: [WaypointBody]) throws -> [ReceivedWaypoint] {
            guard list.count <= OwnTracksMessage.maxWaypoints else {
                throw refuse("waypoints", "\(list.count) waypoints (at most \(OwnTracksMessage.maxWaypoints))")
            }
            return try list.enumerated().map { i, w in try waypoint(w, field: { "waypoints[\(i)].\($0)" }) }
        }

        /// Whole Unix seconds from 1980 to tomorrow.
        func time(_ seconds: Double, field: String) throws -> Timestamp {
            guard seconds.rounded() == seconds, abs(seconds) < 1e11 else {
                throw refuse(field, "\(seconds) (whole seconds)")
            }
            return try PayloadJSON.plausible(
                Timestamp(milliseconds: Int64(seconds) * 1000), in: .current, field: field, value: "\(Int64(seconds))",
                source: source, line: line)
        }

        /// A text of at most `limit` characters; nil when missing or empty.
        func text(_ value: String?, field: String, limit: Int) throws -> String? {
            guard let value = value?.trimmedWhitespace, !value.isEmpty else { return nil }
            guard value.utf8.count <= limit || value.count <= limit else {
                throw refuse(field, "\(value.count) characters (at most \(limit))")
            }
            return value
        }

        func transition(_ b: TransitionBody) throws -> ReceivedTransition {
            guard let event = RegionEvent(rawValue: b.event) else { throw refuse("event", b.event) }
            try position(b.lat, b.lon, field: { $0 })
            let name = try text(b.desc, field: "desc", limit: TextLimit.label)
            let rid = try text(b.rid, field: "rid", limit: OwnTracksMessage.maxIDLength)
            guard name != nil || rid != nil else { throw refuse("desc", "missing, and no rid names the region") }
            guard b.acc.map({ $0.isFinite }) ?? true else { throw refuse("acc", "\(b.acc!)") }
            return ReceivedTransition(
                event: event, time: try time(b.tst, field: "tst"), latitude: b.lat, longitude: b.lon,
                horizontalAccuracy: b.acc.flatMap { $0 > 0 ? $0 : nil }, regionName: name, regionID: rid,
                regionCreated: try time(b.wtst, field: "wtst"),
                // As for a location's t: a value OwnTracks does not define is not kept.
                trigger: b.t.flatMap(TransitionTrigger.init(rawValue:)))
        }

        func waypoint(_ w: WaypointBody, field: (String) -> String = { $0 }) throws -> ReceivedWaypoint {
            guard let desc = try text(w.desc, field: field("desc"), limit: TextLimit.label) else {
                throw refuse(field("desc"), "empty")
            }
            var (lat, lon) = (w.lat, w.lon)
            switch (lat, lon) {
            case (0?, 0?): (lat, lon) = (nil, nil)  // a beacon's region: no centre
            case (let la?, let lo?): try position(la, lo, field: field)
            case (nil, nil): break
            default: throw refuse(field(lat == nil ? "lat" : "lon"), "missing (the other is given)")
            }
            if let rad = w.rad, !(rad >= 0 && rad <= 1_000_000) { throw refuse(field("rad"), "\(rad)") }
            return ReceivedWaypoint(
                regionID: try text(w.rid, field: field("rid"), limit: OwnTracksMessage.maxIDLength),
                description: desc, latitude: lat, longitude: lon, radius: w.rad,
                created: try time(w.tst, field: field("tst")))
        }

        func position(_ lat: Double, _ lon: Double, field: (String) -> String) throws {
            guard Geo.latitudeRange.contains(lat) else { throw refuse(field("lat"), "\(lat)") }
            guard Geo.longitudeRange.contains(lon) else { throw refuse(field("lon"), "\(lon)") }
            try PayloadJSON.position(
                latitude: lat, longitude: lon, field: field("lat, lon"), source: source, line: line)
        }

        /// The face is checked as text first (at most the base64 length of 256 KiB), then decoded strictly (line
        /// breaks aside), and must be a PNG or a JPEG.
        func card(_ c: CardBody) throws -> DeviceCard {
            var face: [UInt8]?
            if let text = c.face, !text.isEmpty {
                let maxText = (DeviceCard.maxFaceBytes + 2) / 3 * 4
                guard text.utf8.count <= maxText + maxText / 64 else {
                    throw refuse(
                        "face", "\(text.utf8.count) bytes of base64 (at most \(DeviceCard.maxFaceBytes) decoded)")
                }
                let compact = text.filter { $0 != "\n" && $0 != "\r" }
                guard let data = Data(base64Encoded: compact) else { throw refuse("face", "not base64") }
                guard data.count <= DeviceCard.maxFaceBytes else {
                    throw refuse("face", "\(data.count) bytes (at most \(DeviceCard.maxFaceBytes))")
                }
                let bytes = [UInt8](data)
                guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || bytes.starts(with: [0xFF, 0xD8, 0xFF]) else {
                    throw refuse("face", "not a PNG or JPEG image")
                }
                face = bytes
            }
            return DeviceCard(
                name: try text(c.name, field: "name", limit: DeviceCard.maxNameLength), face: face,
                trackerID: try text(c.tid, field: "tid", limit: OwnTracksMessage.maxIDLength))
        }
    }
}
