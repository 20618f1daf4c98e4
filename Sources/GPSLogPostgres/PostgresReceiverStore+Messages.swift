// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import NIOCore
import PostgresNIO

/// OwnTracks' transitions, waypoints, cards and last wills, as the SQLite store keeps them: each call one
/// transaction, and the same message stored twice changes nothing the second time.
extension PostgresReceiverStore {
    // MARK: - Transitions

    /// One transaction; the region gets its centre and radius from the device's waypoint, when one is kept, and a
    /// session made by the transition alone spans its time.
    public func storeReceivedTransition(_ t: ReceivedTransition, device: String) throws -> ReceivedOutcome {
        let key = ReceiverRules.deviceKey(device)
        return try transaction(doing: "storing a transition") {
            let session = try receiverSession(key, name: device, start: t.time, mode: nil)
            let waypoint = try receivedWaypoint(device: key, regionID: t.regionID, created: t.regionCreated)
            let (name, area) = ReceiverRules.transitionRegion(t, waypoint: waypoint)
            let region = Region(
                name: PostgresRows.text(name)!, latitude: area?.0 ?? t.latitude, longitude: area?.1 ?? t.longitude,
                radius: area?.2 ?? 0, regionID: PostgresRows.text(t.regionID) ?? "", created: t.regionCreated)
            let transition = Transition(
                region: region, event: t.event, time: t.time, latitude: t.latitude, longitude: t.longitude,
                horizontalAccuracy: t.horizontalAccuracy, trigger: t.trigger)
            let stored = try PostgresEvents.insert(
                transition, session: session.id, regionKnown: area != nil, into: database)
            guard stored == 1 else { return ReceivedOutcome(session: session.name, stored: 0, duplicates: 1) }
            // A session made by a transition alone spans it (a session without an end would look abandoned).
            var b = PostgresBindings()
            b.append(t.time.milliseconds)
            b.append(session.id)
            try database.execute(
                """
                UPDATE sessions SET start_time = LEAST(start_time, gpslog_time($1)),
                    end_time = GREATEST(coalesce(end_time, gpslog_time($1)), gpslog_time($1)), updated_at = now()
                WHERE id = $2::uuid
                """, b, doing: "widening the session of a device")
            return ReceivedOutcome(session: session.name, stored: 1, duplicates: 0)
        }
    }

    /// The device's waypoint with `regionID`, or without one the waypoint made at `created`.
    private func receivedWaypoint(device: String, regionID: String?, created: Timestamp) throws -> ReceivedWaypoint? {
        var b = PostgresBindings()
        b.append(device)
        b.append(PostgresRows.text(regionID) ?? "")
        b.append(created.milliseconds)
        let rows = try database.query(
            """
            SELECT description, latitude, longitude, radius FROM received_waypoints
            WHERE device = $1 AND ((region_id = $2 AND $2 <> '') OR ($2 = '' AND created_at = gpslog_time($3)))
            ORDER BY created_at DESC LIMIT 1
            """, b, doing: "reading a device's waypoint")
        guard let row = rows.first else { return nil }
        let (description, lat, lon, radius) = try row.decode((String, Double?, Double?, Double?).self)
        return ReceivedWaypoint(
            regionID: regionID, description: description, latitude: lat, longitude: lon, radius: radius,
            created: created)
    }

    // MARK: - Waypoints

    /// One transaction; a waypoint stored or replaced gives the device's earlier transitions through its region
    /// their centre and radius.
    public func storeReceivedWaypoints(_ waypoints: [ReceivedWaypoint], device: String, at now: Timestamp) throws
        -> WaypointOutcome
    {
        let key = ReceiverRules.deviceKey(device)
        return try transaction(doing: "storing waypoints") {
            var outcome = WaypointOutcome()
            for w in waypoints {
                var b = PostgresBindings()
                b.append(key)
                b.append(PostgresRows.text(w.regionID) ?? "")
                b.append(PostgresRows.text(w.description)!)
                b.append(w.latitude)
                b.append(w.longitude)
                b.append(w.radius)
                b.append(w.created.milliseconds)
                b.append(now.milliseconds)
                // The same rid with an earlier tst is replaced. Without a rid, the tst is the waypoint's identity.
                let conflict =
                    w.regionID == nil
                    ? "ON CONFLICT ON CONSTRAINT waypoint_once DO NOTHING"
                    : """
                    ON CONFLICT (device, region_id) WHERE region_id <> '' DO UPDATE SET description = EXCLUDED.description,
                        latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude, radius = EXCLUDED.radius,
                        created_at = EXCLUDED.created_at, received_at = EXCLUDED.received_at
                    WHERE received_waypoints.created_at < EXCLUDED.created_at
                    """
                let changed = try database.execute(
                    """
                    INSERT INTO received_waypoints (device, region_id, description, latitude, longitude, radius,
                        created_at, received_at)
                    VALUES ($1, $2, $3, $4, $5, $6, gpslog_time($7), gpslog_time($8))
                    """ + "\n" + conflict, b, doing: "storing a waypoint")
                if changed == 1 {
                    outcome.stored += 1
                    try fillTransitions(device: key, waypoint: w)
                } else {
                    outcome.unchanged += 1
                }
            }
            return outcome
        }
    }

    /// Gives the device's transitions through `waypoint`'s region that came before it its centre and radius.
    private func fillTransitions(device: String, waypoint w: ReceivedWaypoint) throws {
        guard let lat = w.latitude, let lon = w.longitude, let rad = w.radius, rad > 0 else { return }
        var b = PostgresBindings()
        b.append(lat)
        b.append(lon)
        b.append(rad)
        b.append(device)
        b.append(PostgresRows.text(w.regionID) ?? "")
        b.append(w.created.milliseconds)
        try database.execute(
            """
            UPDATE transitions SET region_latitude = $1, region_longitude = $2, region_radius = $3
            WHERE session_id = (SELECT id FROM sessions WHERE receiver = $4 AND origin = 'serve')
                AND region_latitude IS NULL
                AND ((region_id = $5 AND $5 <> '') OR ($5 = '' AND region_id = '' AND region_created = gpslog_time($6)))
            """, b, doing: "placing a device's transitions")
    }

    // MARK: - Cards and last wills

    /// Keeps the card in the device's row of `received_devices`; false when that row holds the same card already.
    public func storeReceivedCard(_ card: DeviceCard, device: String, at now: Timestamp) throws -> Bool {
        var b = PostgresBindings()
        b.append(ReceiverRules.deviceKey(device))
        b.append(PostgresRows.text(card.name))
        b.append(card.face.map { ByteBuffer(bytes: $0) })
        b.append(PostgresRows.text(card.trackerID))
        b.append(now.milliseconds)
        return try transaction(doing: "storing a card") {
            try database.execute(
                """
                INSERT INTO received_devices (device, card_name, card_face, card_tracker_id, card_received_at)
                VALUES ($1, $2, $3, $4, gpslog_time($5))
                ON CONFLICT (device) DO UPDATE SET card_name = $2, card_face = $3, card_tracker_id = $4,
                    card_received_at = gpslog_time($5)
                WHERE received_devices.card_received_at IS NULL
                    OR (received_devices.card_name, received_devices.card_face, received_devices.card_tracker_id)
                        IS DISTINCT FROM ($2, $3, $4)
                """, b, doing: "storing a card") == 1
        }
    }

    /// Keeps the last will in the device's row of `received_devices`; false when it is the one kept already (same
    /// `tst`).
    public func storeLastWill(connected: Timestamp, device: String, at now: Timestamp) throws -> Bool {
        var b = PostgresBindings()
        b.append(ReceiverRules.deviceKey(device))
        b.append(now.milliseconds)
        b.append(connected.milliseconds)
        return try transaction(doing: "storing a last will") {
            try database.execute(
                """
                INSERT INTO received_devices (device, last_will_at, last_will_connected)
                VALUES ($1, gpslog_time($2), gpslog_time($3))
                ON CONFLICT (device) DO UPDATE SET last_will_at = gpslog_time($2), last_will_connected = gpslog_time($3)
                WHERE received_devices.last_will_connected IS DISTINCT FROM gpslog_time($3)
                """, b, doing: "storing a last will") == 1
        }
    }
}
