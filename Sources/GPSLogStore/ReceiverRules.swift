// SPDX-License-Identifier: MIT
import GPSLogModel

/// What `gpslog serve` does with what phones send, decided once for every store it writes into (SQLite's `Store`,
/// PostgreSQL's receiver store): given a message and what the store answered, what to write. Pure functions; each
/// store keeps only its SQL (the reads that answer, the writes that follow).
public enum ReceiverRules {
    // MARK: - Devices and their sessions

    /// The key of an OwnTracks device (`USER/DEVICE`) in the sessions' receiver and the received tables, the same in
    /// every store.
    public static func deviceKey(_ device: String) -> String { sessionKey("owntracks:" + device) }

    /// The key of a receiver's session (`overland:DEVICE[ trip START]`, `owntracks:USER/DEVICE`): it holds a device
    /// id from outside, cut like one (plus room for its prefix and trip).
    public static func sessionKey(_ receiver: String) -> String { receiver.truncated(to: TextLimit.deviceID + 64) }

    /// The name of a receiver's new session: the name asked for, trimmed and cut to a session name's length, or the
    /// receiver's key when that leaves nothing.
    public static func newSessionName(_ name: String, receiver: String) -> String {
        let trimmed = name.trimmedWhitespace.truncated(to: TextLimit.sessionName)
        return trimmed.isEmpty ? receiver.truncated(to: TextLimit.sessionName) : trimmed
    }

    // MARK: - Locations

    /// The locations of a batch to store: in time order, one per time and place (`ReceivedPlace`: a phone re-sending
    /// a batch sends the same points), none the session holds already (`isStored`; a store whose unique index skips
    /// them answers false), each with an id (made from its time when it came without).
    public static func freshLocations(_ entries: [Entry], isStored: (ReceivedPlace) throws -> Bool) rethrows
        -> [Entry]
    {
        var fresh: [Entry] = []
        var seen = Set<ReceivedPlace>()
        var rng = SystemRandomNumberGenerator()
        for var e in entries.sorted(by: { $0.time < $1.time }) {
            let place = ReceivedPlace(e)
            guard seen.insert(place).inserted, try !isStored(place) else { continue }
            if e.id.isEmpty { e.id = Identifier.uuidV7(time: e.time, using: &rng) }
            fresh.append(e)
        }
        return fresh
    }

    // MARK: - Transitions

    /// The region a transition is stored with: named by the transition's `desc`, else its waypoint's, else its rid;
    /// the waypoint gives the centre and radius (without one, or without a radius, they stay unknown).
    public static func transitionRegion(_ t: ReceivedTransition, waypoint: ReceivedWaypoint?) -> (
        name: String, area: (latitude: Double, longitude: Double, radius: Double)?
    ) {
        ((t.regionName ?? waypoint?.description ?? t.regionID ?? "").truncated(to: TextLimit.label), waypoint?.area)
    }

    // MARK: - Waypoints

    /// What storing a waypoint does to the device's list.
    public enum WaypointWrite: Sendable, Equatable {
        /// A new waypoint.
        case insert
        /// It replaces the kept one of its rid (its `tst` is later).
        case replace
        /// The list holds it already (the same `tst`, or a later one).
        case unchanged
    }

    /// What to do with waypoint `w`, given `kept`: the device's waypoint of the same rid, or without a rid the one of
    /// the same `tst` (its identity then). A stored waypoint (`insert`, `replace`) gives its area to the device's
    /// transitions through its region that have none yet (`ReceivedWaypoint.area`).
    public static func waypointWrite(_ w: ReceivedWaypoint, kept: ReceivedWaypoint?) -> WaypointWrite {
        guard let kept else { return .insert }
        return w.regionID != nil && kept.created < w.created ? .replace : .unchanged
    }

    // MARK: - Visits

    /// What storing an Overland visit record does.
    public enum VisitWrite: Sendable, Equatable {
        /// A new visit (its arrival is not stored yet).
        case add
        /// The stored visit of the same arrival gets what it lacked: its departure (the visit's second record), its
        /// place's name (named by the sender since); nil: that one is left as it is.
        case fill(departure: Timestamp?, name: String?)
        /// Nothing new (a record sent twice; a departure is never moved, a name given here never replaced).
        case unchanged
    }

    /// What to do with visit `v`, given the session's stored visit of the same arrival (nil when there is none):
    /// its departure and name, nil where it has none yet.
    public static func visitWrite(_ v: Visit, kept: (departure: Timestamp?, name: String?)?) -> VisitWrite {
        guard let kept else { return .add }
        let departure = kept.departure == nil ? v.departure : nil
        let name = kept.name == nil ? v.name.flatMap(Store.placeName) : nil
        return departure == nil && name == nil ? .unchanged : .fill(departure: departure, name: name)
    }
}
