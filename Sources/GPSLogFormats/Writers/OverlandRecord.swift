// SPDX-License-Identifier: MIT
import GPSLogModel

/// One of Overland's records that are not locations, as the app mixes them into a batch's `locations`: the
/// automatic pause and its resume (`properties.action`), and visits (`action: visit`, sent at the arrival with
/// `departure_date: null` and again at the departure, as iOS reports them). Readers tell them from locations by
/// `action` (and trips by `type: trip`), as Overland's own queue does.
public struct OverlandRecord: Sendable, Equatable {
    /// What the record says.
    public enum Kind: Sendable, Equatable {
        /// `paused_location_updates`, `exited_pause_region` or `resumed_location_updates`.
        case action(String)
        /// A visit; `departure` nil in the arrival's record; `name` the name the user gave the place (gpslog's own
        /// property: Overland's app sends none).
        case visit(arrival: Timestamp, departure: Timestamp?, horizontalAccuracy: Double, name: String?)
        /// A finished trip (`type: trip`), with its first and last locations.
        case trip(Trip)
    }

    /// What Overland's trip record says of a finished trip.
    public struct Trip: Sendable, Equatable {
        /// The trip's mode.
        public var mode: TripMode
        /// When the trip started.
        public var start: Timestamp
        /// When it ended.
        public var end: Timestamp
        /// The trip's first location.
        public var startLocation: Entry
        /// The trip's last location.
        public var endLocation: Entry
        /// Metres.
        public var distance: Double
        /// The automatic pause ended it, not `trip stop`.
        public var stoppedAutomatically: Bool
    }

    /// The `SentRecords` name of a trip's record.
    public static func tripID(_ sessionID: String) -> String { "trip:" + sessionID }

    /// The record of a finished trip session, at its last location (seeds-details 2.2).
    public static func trip(
        _ session: Session, end: Timestamp, first: Entry, last: Entry, distance: Double, stoppedAutomatically: Bool
    ) -> OverlandRecord {
        let trip = Trip(
            mode: session.mode ?? .bicycle, start: session.start, end: end, startLocation: first, endLocation: last,
            distance: distance, stoppedAutomatically: stoppedAutomatically)
        return OverlandRecord(
            id: tripID(session.id), kind: .trip(trip), time: max(end, last.time), latitude: last.latitude,
            longitude: last.longitude)
    }

    /// What the destination confirms (`SentRecords.Record`): `event:KEY`, `event:KEY:exit`, `visit:KEY:arrival`,
    /// `visit:KEY:departure`.
    public var id: String
    /// Action, visit or trip.
    public var kind: Kind
    /// The record's time: the fix that caused it (Overland uses the phone's clock; gpslog keeps fix time).
    public var time: Timestamp
    /// Degrees north, WGS 84, of the fix that caused it.
    public var latitude: Double
    /// Degrees east, WGS 84, of the fix that caused it.
    public var longitude: Double

    /// Creates a record from its parts.
    public init(id: String, kind: Kind, time: Timestamp, latitude: Double, longitude: Double) {
        self.id = id
        self.kind = kind
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The records of a session's tracking events and visits, in time order: a pause is one record, a resume two
    /// (`exited_pause_region`, then `resumed_location_updates`), a visit its arrival and, once known, its departure.
    public static func records(events: [TrackingEvent], visits: [Visit]) -> [OverlandRecord] {
        var out: [OverlandRecord] = []
        for e in events {
            guard let key = e.key else { continue }
            if e.action == .resumed {
                out.append(
                    OverlandRecord(
                        id: "event:\(key):exit", kind: .action("exited_pause_region"), time: e.time,
                        latitude: e.latitude, longitude: e.longitude))
            }
            out.append(
                OverlandRecord(
                    id: "event:\(key)", kind: .action(e.action.rawValue), time: e.time, latitude: e.latitude,
                    longitude: e.longitude))
        }
        for v in visits {
            guard let key = v.key else { continue }
            out.append(
                OverlandRecord(
                    id: "visit:\(key):arrival",
                    kind: .visit(
                        arrival: v.arrival, departure: nil, horizontalAccuracy: v.horizontalAccuracy, name: v.name),
                    time: v.arrival, latitude: v.latitude, longitude: v.longitude))
            if let departure = v.departure {
                out.append(
                    OverlandRecord(
                        id: "visit:\(key):departure",
                        kind: .visit(
                            arrival: v.arrival, departure: departure, horizontalAccuracy: v.horizontalAccuracy,
                            name: v.name),
                        time: departure, latitude: v.latitude, longitude: v.longitude))
            }
        }
        // Stable: a resume's exit stays before it.
        return out.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }
}

extension OverlandWriter {
    /// One record as Overland's Feature: `{"type":"Feature","geometry":Point,"properties":{"timestamp","action",...,
    /// metadata}}`; metadata as the app adds it (battery unknown, no wifi, the device id when there is one).
    public func appendRecord(_ r: OverlandRecord, to b: inout [UInt8]) {
        appendFeatureStart(latitude: r.latitude, longitude: r.longitude, time: r.time, to: &b)
        switch r.kind {
        case .action(let action):
            JSONText.appendRaw(#","action":"#, to: &b)
            JSONText.appendString(action, to: &b)
        case .trip(let trip):
            JSONText.appendRaw(#","type":"trip","mode":"#, to: &b)
            JSONText.appendString(trip.mode.rawValue, to: &b)
            JSONText.appendRaw(#","start":"#, to: &b)
            JSONText.appendTime(trip.start, to: &b)
            JSONText.appendRaw(#","end":"#, to: &b)
            JSONText.appendTime(trip.end, to: &b)
            JSONText.appendRaw(#","start_location":"#, to: &b)
            appendFeature(trip.startLocation, to: &b)
            JSONText.appendRaw(#","end_location":"#, to: &b)
            appendFeature(trip.endLocation, to: &b)
            JSONText.appendRaw(#","duration":"#, to: &b)
            DecimalText.append(Double(trip.end.milliseconds - trip.start.milliseconds) / 1000, places: 3, to: &b)
            JSONText.appendRaw(#","distance":"#, to: &b)
            DecimalText.append(trip.distance, places: 1, to: &b)
            JSONText.appendRaw(#","stopped_automatically":"#, to: &b)
            JSONText.appendRaw(trip.stoppedAutomatically ? "true" : "false", to: &b)
            JSONText.appendRaw(#","steps":0"#, to: &b)
        case .visit(let arrival, let departure, let accuracy, let name):
            JSONText.appendRaw(#","action":"visit","arrival_date":"#, to: &b)
            JSONText.appendTime(arrival, to: &b)
            JSONText.appendRaw(#","departure_date":"#, to: &b)
            if let departure { JSONText.appendTime(departure, to: &b) } else { JSONText.appendRaw("null", to: &b) }
            JSONText.appendRaw(#","horizontal_accuracy":"#, to: &b)
            DecimalText.append(accuracy, places: 0, to: &b)
            JSONText.appendOptional("name", name, to: &b)
        }
        JSONText.appendRaw(#","battery_state":"unknown","battery_level":-1,"wifi":"""#, to: &b)
        if let deviceID, !deviceID.isEmpty {
            JSONText.appendRaw(#","device_id":"#, to: &b)
            JSONText.appendString(deviceID, to: &b)
        }
        if let uniqueID {
            JSONText.appendRaw(#","unique_id":"#, to: &b)
            JSONText.appendString(uniqueID, to: &b)
        }
        JSONText.appendRaw("}}", to: &b)
    }
}
