// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

// Why not `JSONDecoder` alone: in a release build it took 42 % of `serve`'s CPU for 200-point Overland batches
// (2026-11-28, `perf record` of Benchmarks/ingest.py: its generic metadata lookups, retains and releases per value),
// more than SQLite's 26 %. The batch is read here by the streaming reader instead, into the same `Body`: 15 %, and
// serve's CPU for 100,000 points went from 2.6-2.9 s to 1.9-2.2 s. JSONDecoder stays the judge of everything
// that is not plainly right: whatever this reader is not sure of (a value of the wrong type, a null where one is
// required, a number JSONDecoder would not take, a string it would read otherwise, JSON it refuses, no `locations`
// array) makes it give up, and the body is decoded by `JSONDecoder` as before. Refusals, their texts and their
// fields are therefore JSONDecoder's, and a refused batch costs what it did; the differential test holds the two
// readers to the same `Body`.

extension OverlandPayload.Body {
    /// The body of an Overland batch read by `JSONStreamReader`; nil when the body is anything else or anything
    /// this reader is not sure of (then `JSONDecoder` reads it: see above).
    static func streamed(_ data: Data) -> Self? {
        guard var reader = try? OverlandBodyReader([UInt8](data)) else { return nil }
        return try? reader.body()
    }

    /// The body as `JSONDecoder` reads it (the judge of what `streamed` gives up on).
    static func decoded(_ data: Data, source: String) throws -> Self {
        try PayloadJSON.decode(Self.self, from: data, source: source, line: 0)
    }
}

/// Reads an Overland batch as `JSONDecoder` would decode `OverlandPayload.Body`: the first of repeated keys wins,
/// unknown keys and their values are skipped, `geometry.coordinates` is read only for a Point, `name` is text or
/// nothing. Throws `Unsure` (or the reader's refusal) where `JSONDecoder` would refuse or might read otherwise.
private struct OverlandBodyReader {
    /// This reader gives up: `JSONDecoder` decides.
    struct Unsure: Error {}

    var json: JSONStreamReader

    init(_ bytes: [UInt8]) throws {
        json = try JSONStreamReader(bytes: bytes, source: "")
    }

    mutating func body() throws -> OverlandPayload.Body {
        guard try json.next() == .objectStart else { throw Unsure() }
        var body = OverlandPayload.Body()
        var seen = Seen()
        while try json.next() != .objectEnd {
            if json.textEquals("locations"), seen.first(0) {
                guard try json.next() == .arrayStart else { throw Unsure() }
                var features: [OverlandPayload.Feature] = []
                while true {
                    let event = try json.next()
                    if event == .arrayEnd { break }
                    features.append(try feature(event))
                }
                body.locations = features
            } else if json.textEquals("trip"), seen.first(1) {
                switch try json.next() {
                case .null: break
                case .objectStart: body.trip = try trip()
                default: throw Unsure()
                }
            } else {
                try json.skipValue()
            }
        }
        guard try json.next() == .end, body.locations != nil else { throw Unsure() }
        return body
    }

    private mutating func trip() throws -> OverlandPayload.Trip {
        var trip = OverlandPayload.Trip()
        var seen = Seen()
        while try json.next() != .objectEnd {
            if json.textEquals("mode"), seen.first(0) {
                trip.mode = try string()
            } else if json.textEquals("start"), seen.first(1) {
                trip.start = try string()
            } else {
                try json.skipValue()
            }
        }
        return trip
    }

    private mutating func feature(_ event: JSONStreamReader.Event) throws -> OverlandPayload.Feature {
        guard event == .objectStart else { throw Unsure() }
        var properties: OverlandPayload.Properties?
        var point: (Double, Double)?
        var seen = Seen()
        while try json.next() != .objectEnd {
            if json.textEquals("properties"), seen.first(0) {
                guard try json.next() == .objectStart else { throw Unsure() }
                properties = try self.properties()
            } else if json.textEquals("geometry"), seen.first(1) {
                switch try json.next() {
                case .null: break
                case .objectStart: point = try geometry()
                default: throw Unsure()
                }
            } else {
                try json.skipValue()
            }
        }
        guard let properties else { throw Unsure() }
        return OverlandPayload.Feature(point: point, properties: properties)
    }

    /// A geometry's point: (longitude, latitude) for a Point, nil for any other type (its coordinates not read).
    private mutating func geometry() throws -> (Double, Double)? {
        var type: String?
        var coordinates: [Double]?  // nil: missing, or not an array of numbers
        var seen = Seen()
        while try json.next() != .objectEnd {
            if json.textEquals("type"), seen.first(0) {
                type = try string()
            } else if json.textEquals("coordinates"), seen.first(1) {
                coordinates = try numbers()
            } else {
                try json.skipValue()
            }
        }
        guard type == "Point" else { return nil }
        guard let coordinates, coordinates.count >= 2 else { throw Unsure() }
        return (coordinates[0], coordinates[1])
    }

    /// An array of numbers; nil for anything else (read past), which only a Point refuses.
    private mutating func numbers() throws -> [Double]? {
        let first = try json.next()
        guard first == .arrayStart else {
            try json.skip(first)
            return nil
        }
        var values: [Double] = []
        values.reserveCapacity(3)
        while true {
            let event = try json.next()
            if event == .arrayEnd { return values }
            guard case .number(let v) = event, let checked = checked(v) else {
                try json.skip(event)
                try json.skipRest()
                return nil
            }
            values.append(checked)
        }
    }

    private mutating func properties() throws -> OverlandPayload.Properties {
        var p = OverlandPayload.Properties(timestamp: "")
        var hasTimestamp = false
        var seen = Seen()
        while try json.next() != .objectEnd {
            // Most keys are told apart by their length before a byte is compared.
            switch json.text.count {
            case 4 where json.textEquals("name") && seen.first(0): p.nameValue = try looseText()
            case 4 where json.textEquals("wifi") && seen.first(1): p.wifi = try string()
            case 4 where json.textEquals("type") && seen.first(2): p.type = try string()
            case 5 where json.textEquals("speed") && seen.first(3): p.speed = try number()
            case 6 where json.textEquals("course") && seen.first(4): p.course = try number()
            case 6 where json.textEquals("motion") && seen.first(5): p.motion = try strings()
            case 6 where json.textEquals("action") && seen.first(6): p.action = try string()
            case 8 where json.textEquals("altitude") && seen.first(7): p.altitude = try number()
            case 9 where json.textEquals("timestamp") && seen.first(8):
                guard let text = try string() else { throw Unsure() }
                p.timestamp = text
                hasTimestamp = true
            case 9 where json.textEquals("device_id") && seen.first(9): p.deviceID = try string()
            case 12 where json.textEquals("arrival_date") && seen.first(10): p.arrivalDate = try string()
            case 13 where json.textEquals("battery_level") && seen.first(11): p.batteryLevel = try number()
            case 13 where json.textEquals("battery_state") && seen.first(12): p.batteryState = try string()
            case 14 where json.textEquals("departure_date") && seen.first(13): p.departureDate = try string()
            case 14 where json.textEquals("speed_accuracy") && seen.first(14): p.speedAccuracy = try number()
            case 15 where json.textEquals("course_accuracy") && seen.first(15): p.courseAccuracy = try number()
            case 17 where json.textEquals("vertical_accuracy") && seen.first(16): p.verticalAccuracy = try number()
            case 19 where json.textEquals("horizontal_accuracy") && seen.first(17):
                p.horizontalAccuracy = try number()
            default: try json.skipValue()
            }
        }
        guard hasTimestamp else { throw Unsure() }
        return p
    }

    // MARK: - Values

    /// A number or null (nil).
    private mutating func number() throws -> Double? {
        switch try json.next() {
        case .null: return nil
        case .number(let v):
            guard let checked = checked(v) else { throw Unsure() }
            return checked
        default: throw Unsure()
        }
    }

    /// `v` when JSONDecoder surely reads the number's text as `v`: finite (the reader has seen to it), and normal
    /// or a zero without an exponent. JSONDecoder refuses `1e-400` and, oddly, `0e1` to `0e9` (but takes `0e10`);
    /// such zeros and subnormals are left to it.
    private func checked(_ v: Double) -> Double? {
        if v.isNormal { return v }
        guard v == 0, !json.scratch.contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) else { return nil }
        return v
    }

    /// A string or null (nil): whole (not cut at the reader's limit).
    private mutating func string() throws -> String? {
        switch try json.next() {
        case .null: return nil
        case .string:
            guard !json.textOverflowed else { throw Unsure() }
            return json.string
        default: throw Unsure()
        }
    }

    /// An array of strings, or null (nil).
    private mutating func strings() throws -> [String]? {
        switch try json.next() {
        case .null: return nil
        case .arrayStart:
            var values: [String] = []
            while true {
                let event = try json.next()
                if event == .arrayEnd { return values }
                guard event == .string, !json.textOverflowed else { throw Unsure() }
                values.append(json.string)
            }
        default: throw Unsure()
        }
    }

    /// `name`: text when it is a string, nothing for null, and no text for any other value (read past).
    private mutating func looseText() throws -> LooseText? {
        let event = try json.next()
        switch event {
        case .null: return nil
        case .string:
            guard !json.textOverflowed else { throw Unsure() }
            return LooseText(text: json.string)
        default:
            try json.skip(event)
            return LooseText(text: nil)
        }
    }
}

/// Which of an object's keys have been read: JSONDecoder takes the first of repeated keys.
private struct Seen {
    private var bits: UInt32 = 0

    /// True the first time `key` is asked for.
    mutating func first(_ key: Int) -> Bool {
        let bit: UInt32 = 1 << UInt32(key)
        defer { bits |= bit }
        return bits & bit == 0
    }
}
