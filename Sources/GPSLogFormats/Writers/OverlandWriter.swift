// SPDX-License-Identifier: MIT
import GPSLogModel

/// Overland's batch body, exactly as the app POSTs it: `{"locations":[Feature, ...]}` with every property, plus
/// `trip` when the session has a mode. Split into batches of `batchSize`; `upload` sends these same bodies.
/// Unknown values use CoreLocation's -1, as Overland does; marks and heading changes are not locations here.
public struct OverlandWriter: TrackWriter {
    /// Locations per batch.
    public var batchSize: Int
    /// `device_id` for locations that have none of their own.
    public var deviceID: String?
    /// Overland's `unique_id`, written on every location when set (the app's "unique_id=yes").
    public var uniqueID: String?

    /// A writer of batches of `batchSize` (200 by default), with no device id unless given.
    public init(batchSize: Int = 200, deviceID: String? = nil) {
        self.batchSize = batchSize
        self.deviceID = deviceID
    }

    /// Writes the batches, one output per batch (numbered from 0); nothing for sessions without track points.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        var batches = 0
        for s in sessions {
            var pending: [Entry] = []
            var distance = 0.0
            var previous: Entry?
            var first: Entry?
            func flush() throws {
                guard !pending.isEmpty else { return }
                let out = try outputs.open(batches)
                try writeBatch(pending, session: s.session, start: first, distance: distance, to: out)
                try out.commit()
                batches += 1
                pending.removeAll(keepingCapacity: true)
            }
            try s.forEachTrackPoint { e in
                if let p = previous {
                    distance += Geo.distance(lat1: p.latitude, lon1: p.longitude, lat2: e.latitude, lon2: e.longitude)
                }
                previous = e
                if first == nil { first = e }
                pending.append(e)
                if pending.count == batchSize { try flush() }
            }
            try flush()
        }
    }

    /// One batch body, written to a file.
    public func writeBatch(_ entries: [Entry], session: Session, start: Entry?, distance: Double, to out: OutputFile)
        throws
    {
        try out.write(batchBody(entries, session: session, start: start, distance: distance))
    }

    /// One batch body, as bytes: the locations, with `records` (pause, resume, visits) mixed in by time as the app
    /// mixes them, `current` (the latest location, which Overland adds when more than two batches wait, so the
    /// server sees where the device is now), and `trip` when the session has a mode.
    public func batchBody(
        _ entries: [Entry], records: [OverlandRecord] = [], session: Session, start: Entry?, distance: Double,
        current: Entry? = nil
    ) -> [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(entries.count * 420 + records.count * 300 + 600)
        JSONText.appendRaw("{\"locations\":[", to: &b)
        var next = records.startIndex
        var first = true
        func separate() {
            if !first { b.append(UInt8(ascii: ",")) }
            first = false
            b.append(UInt8(ascii: "\n"))
        }
        for e in entries {
            while next < records.endIndex && records[next].time <= e.time {
                separate()
                appendRecord(records[next], to: &b)
                next += 1
            }
            separate()
            appendFeature(e, to: &b)
        }
        for r in records[next...] {
            separate()
            appendRecord(r, to: &b)
        }
        JSONText.appendRaw("\n]", to: &b)
        if let current {
            JSONText.appendRaw(#","current":"#, to: &b)
            appendFeature(current, to: &b)
        }
        if let mode = session.mode, let last = entries.last {
            JSONText.appendRaw(#","trip":{"mode":"#, to: &b)
            JSONText.appendString(mode.rawValue, to: &b)
            JSONText.appendRaw(#","start":"#, to: &b)
            JSONText.appendTime(session.start, to: &b)
            JSONText.appendRaw(#","distance":"#, to: &b)
            DecimalText.append(distance, places: 1, to: &b)
            JSONText.appendRaw(#","start_location":"#, to: &b)
            if let start { appendFeature(start, to: &b) } else { JSONText.appendRaw("null", to: &b) }
            JSONText.appendRaw(#","current_location":"#, to: &b)
            appendFeature(last, to: &b)
            b.append(UInt8(ascii: "}"))
        }
        JSONText.appendRaw("}\n", to: &b)
        return b
    }

    /// A Point Feature up to its first property: `{"type":"Feature","geometry":...,"properties":{"timestamp":T`.
    func appendFeatureStart(latitude: Double, longitude: Double, time: Timestamp, to b: inout [UInt8]) {
        JSONText.appendRaw(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#, to: &b)
        DecimalText.append(longitude, places: Precision.coordinate, to: &b)
        b.append(UInt8(ascii: ","))
        DecimalText.append(latitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#"]},"properties":{"timestamp":"#, to: &b)
        JSONText.appendTime(time, to: &b)
    }

    /// One location Feature with Overland's properties.
    public func appendFeature(_ e: Entry, to b: inout [UInt8]) {
        appendFeatureStart(latitude: e.latitude, longitude: e.longitude, time: e.time, to: &b)
        JSONText.appendOptional("altitude", e.altitude, places: Precision.altitude, to: &b)
        func number(_ key: StaticString, _ v: Double?, _ places: Int) {
            b.append(UInt8(ascii: ","))
            JSONText.appendKey(key, to: &b)
            if let v { DecimalText.append(v, places: places, to: &b) } else { JSONText.appendRaw("-1", to: &b) }
        }
        number("speed", e.speed, Precision.speed)
        number("course", e.course, Precision.angle)
        number("horizontal_accuracy", e.horizontalAccuracy, Precision.accuracy)
        number("vertical_accuracy", e.verticalAccuracy, Precision.accuracy)
        number("speed_accuracy", e.speedAccuracy, Precision.accuracy)
        number("course_accuracy", e.courseAccuracy, Precision.accuracy)
        JSONText.appendRaw(#","motion":["#, to: &b)
        for (i, m) in (e.motion ?? []).enumerated() {
            if i > 0 { b.append(UInt8(ascii: ",")) }
            JSONText.appendString(m, to: &b)
        }
        JSONText.appendRaw(#"],"battery_state":"#, to: &b)
        JSONText.appendString((e.batteryState ?? .unknown).rawValue, to: &b)
        number("battery_level", e.batteryLevel, Precision.battery)
        JSONText.appendRaw(#","device_id":"#, to: &b)
        JSONText.appendString(e.deviceID ?? deviceID ?? "", to: &b)
        if let uniqueID {
            JSONText.appendRaw(#","unique_id":"#, to: &b)
            JSONText.appendString(uniqueID, to: &b)
        }
        JSONText.appendRaw(#","wifi":"#, to: &b)
        JSONText.appendString(e.wifi ?? "", to: &b)
        JSONText.appendRaw("}}", to: &b)
    }
}
