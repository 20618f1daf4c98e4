// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// What storing received waypoints did.
public struct WaypointOutcome: Sendable, Equatable {
    /// New waypoints, and waypoints that replaced one of an earlier `tst`.
    public var stored = 0
    /// Waypoints the device's list held already (the same `tst`, or a later one).
    public var unchanged = 0

    /// Creates an outcome from its counts (none by default).
    public init(stored: Int = 0, unchanged: Int = 0) {
        self.stored = stored
        self.unchanged = unchanged
    }
}

/// The rest of what `gpslog serve` stores of OwnTracks, beside locations: what a second backend implements too. Each
/// call is one transaction, and storing the same message twice changes nothing the second time.
public protocol ReceivedMessageStore: ReceivedLocationStore {
    /// Stores a transition in the session of `owntracks:DEVICE` (created when missing), unless that session holds it
    /// already (same time, region and event).
    func storeReceivedTransition(_ transition: ReceivedTransition, device: String) throws -> ReceivedOutcome
    /// Stores waypoints of `device`, each known by its rid (else its `tst`); a later `tst` replaces an earlier one.
    func storeReceivedWaypoints(_ waypoints: [ReceivedWaypoint], device: String, at now: Timestamp) throws
        -> WaypointOutcome
    /// Keeps `card` as the device's latest; false when it is the card kept already.
    func storeReceivedCard(_ card: DeviceCard, device: String, at now: Timestamp) throws -> Bool
    /// Keeps a last will (`lwt`) as the device's latest; false when it is the one kept already (same `tst`).
    func storeLastWill(connected: Timestamp, device: String, at now: Timestamp) throws -> Bool
}

extension Store: ReceivedMessageStore {
    /// The key of an OwnTracks device (`USER/DEVICE`) in `Sessions.Receiver` and the received tables; every backend
    /// (PostgreSQL's too) keys a device by it, so the same device has the same key in each.
    public static func ownTracksKey(_ device: String) -> String { ReceiverRules.deviceKey(device) }

    // MARK: - Transitions

    /// One write transaction; the region gets its centre and radius from the device's waypoint, when one is kept.
    public func storeReceivedTransition(_ t: ReceivedTransition, device: String) throws -> ReceivedOutcome {
        let key = Store.ownTracksKey(device)
        return try write {
            let session = try receiverSession(key, name: device, start: t.time, mode: nil)
            // A region without rid is known by its creation time (the wtst of each of its transitions).
            let sameRegion = t.regionID == nil ? "RegionID IS NULL AND RegionCreatedAt = ?4" : "RegionID = ?4"
            let regionKey: SQLiteValue = t.regionID.map { .text($0) } ?? .integer(t.regionCreated.milliseconds)
            let stored =
                try database.scalar(
                    """
                    SELECT EXISTS (SELECT 1 FROM Transitions
                        WHERE Session = ?1 AND TimeStamp = ?2 AND Event = ?3 AND \(sameRegion))
                    """,
                    [.text(session.id), .integer(t.time.milliseconds), .text(t.event.rawValue), regionKey])?.int64 == 1
            if stored { return ReceivedOutcome(session: session.name, stored: 0, duplicates: 1) }
            let waypoint = try receivedWaypoint(device: key, regionID: t.regionID, created: t.regionCreated)
            let (name, area) = ReceiverRules.transitionRegion(t, waypoint: waypoint)
            try database.run(
                """
                INSERT INTO Transitions (Session, RegionName, RegionID, RegionCreatedAt, RegionLatitude, RegionLongitude,
                    RegionRadius, Event, TimeStamp, Latitude, Longitude, HorizontalAccuracy, ReportTrigger)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(session.id), .text(name), SQLiteValue(t.regionID),
                    .integer(t.regionCreated.milliseconds), SQLiteValue(area?.0), SQLiteValue(area?.1),
                    SQLiteValue(area?.2), .text(t.event.rawValue), .integer(t.time.milliseconds), .real(t.latitude),
                    .real(t.longitude), SQLiteValue(t.horizontalAccuracy), SQLiteValue(t.trigger?.rawValue),
                ])
            // A session made by a transition alone spans it (a session without an end would look abandoned).
            try database.run(
                """
                UPDATE Sessions SET StartTime = MIN(StartTime, ?1), EndTime = MAX(COALESCE(EndTime, ?1), ?1)
                WHERE ID = ?2
                """, [.integer(t.time.milliseconds), .text(session.id)])
            return ReceivedOutcome(session: session.name, stored: 1, duplicates: 0)
        }
    }

    // MARK: - Waypoints

    /// One write transaction; a stored waypoint also gives its centre and radius to the earlier transitions of its
    /// region.
    public func storeReceivedWaypoints(_ waypoints: [ReceivedWaypoint], device: String, at now: Timestamp) throws
        -> WaypointOutcome
    {
        let key = Store.ownTracksKey(device)
        return try write {
            var outcome = WaypointOutcome()
            for w in waypoints {
                let kept = try keptWaypoint(device: key, like: w)
                let write = ReceiverRules.waypointWrite(w, kept: kept?.waypoint)
                let values: [SQLiteValue] = [
                    .text(key), SQLiteValue(w.regionID), .text(w.description), SQLiteValue(w.latitude),
                    SQLiteValue(w.longitude), SQLiteValue(w.radius), .integer(w.created.milliseconds),
                    .integer(now.milliseconds),
                ]
                switch write {
                case .replace:
                    try database.run(
                        """
                        UPDATE ReceivedWaypoints SET Device = ?, RegionID = ?, Description = ?, Latitude = ?,
                            Longitude = ?, Radius = ?, CreatedAt = ?, ReceivedAt = ?
                        WHERE Key = ?
                        """, values + [.integer(kept!.key)])
                case .insert:
                    try database.run(
                        """
                        INSERT INTO ReceivedWaypoints (Device, RegionID, Description, Latitude, Longitude, Radius,
                            CreatedAt, ReceivedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, values)
                case .unchanged:
                    break
                }
                if write != .unchanged {
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
        let sameRegion = w.regionID == nil ? "RegionID IS NULL AND RegionCreatedAt = ?5" : "RegionID = ?5"
        try database.run(
            """
            UPDATE Transitions SET RegionLatitude = ?1, RegionLongitude = ?2, RegionRadius = ?3
            WHERE Session = (SELECT ID FROM Sessions WHERE Receiver = ?4) AND RegionLatitude IS NULL AND \(sameRegion)
            """,
            [
                .real(lat), .real(lon), .real(rad), .text(device),
                w.regionID.map { .text($0) } ?? .integer(w.created.milliseconds),
            ])
    }

    /// The device's kept waypoint that `w` would replace or repeat (`ReceiverRules.waypointWrite`): the one of its
    /// rid, or without a rid the one of its `tst`; with its row's key.
    private func keptWaypoint(device: String, like w: ReceivedWaypoint) throws -> (
        key: Int64, waypoint: ReceivedWaypoint
    )? {
        let s = try database.cachedStatement(
            """
            SELECT \(Store.waypointColumns), Key FROM ReceivedWaypoints
            WHERE Device = ?1 AND (RegionID = ?2 OR (?2 IS NULL AND RegionID IS NULL AND CreatedAt = ?3))
            """)
        defer { s.reset() }
        try s.bind([.text(device), SQLiteValue(w.regionID), .integer(w.created.milliseconds)])
        return try s.step() ? (s.requiredInt64(at: 7), Store.readWaypoint(s)) : nil
    }

    /// The device's waypoint with `regionID`, or without one the waypoint made at `created`.
    private func receivedWaypoint(device: String, regionID: String?, created: Timestamp) throws -> ReceivedWaypoint? {
        let s = try database.cachedStatement(
            """
            SELECT \(Store.waypointColumns) FROM ReceivedWaypoints
            WHERE Device = ?1 AND (RegionID = ?2 OR (?2 IS NULL AND CreatedAt = ?3))
            ORDER BY CreatedAt DESC LIMIT 1
            """)
        defer { s.reset() }
        try s.bind([.text(device), SQLiteValue(regionID), .integer(created.milliseconds)])
        return try s.step() ? Store.readWaypoint(s) : nil
    }

    static let waypointColumns = "RegionID, Description, Latitude, Longitude, Radius, CreatedAt, Device"

    static func readWaypoint(_ s: Statement) -> ReceivedWaypoint {
        ReceivedWaypoint(
            regionID: s.string(at: 0), description: s.string(at: 1) ?? "", latitude: s.double(at: 2),
            longitude: s.double(at: 3), radius: s.double(at: 4),
            created: Timestamp(milliseconds: s.requiredInt64(at: 5)))
    }

    /// The waypoints OwnTracks devices published, by device (`USER/DEVICE`) and description; one device's only when
    /// `device` is given.
    public func receivedWaypoints(device: String? = nil) throws -> [(device: String, waypoint: ReceivedWaypoint)] {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT \(Store.waypointColumns) FROM ReceivedWaypoints WHERE ?1 IS NULL OR Device = ?1
                ORDER BY Device, Description, CreatedAt
                """)
            defer { s.reset() }
            try s.bind(SQLiteValue(device.map(Store.ownTracksKey)), at: 1)
            var all: [(String, ReceivedWaypoint)] = []
            while try s.step() { all.append((Store.deviceName(s.string(at: 6) ?? ""), Store.readWaypoint(s))) }
            return all
        }
    }

    /// `USER/DEVICE` of a key (`owntracks:USER/DEVICE`).
    static func deviceName(_ key: String) -> String {
        key.hasPrefix("owntracks:") ? String(key.dropFirst(10)) : key
    }

    // MARK: - Cards and last wills

    /// Kept in ReceivedDevices with `now` as when it came; a card equal to the kept one changes nothing.
    public func storeReceivedCard(_ card: DeviceCard, device: String, at now: Timestamp) throws -> Bool {
        try write {
            try database.run(
                """
                INSERT INTO ReceivedDevices (Device, CardName, CardFace, CardTrackerID, CardReceivedAt)
                VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (Device) DO UPDATE SET CardName = ?2, CardFace = ?3, CardTrackerID = ?4, CardReceivedAt = ?5
                WHERE CardReceivedAt IS NULL OR CardName IS NOT ?2 OR CardFace IS NOT ?3 OR CardTrackerID IS NOT ?4
                """,
                [
                    .text(Store.ownTracksKey(device)), SQLiteValue(card.name), card.face.map { .blob($0) } ?? .null,
                    SQLiteValue(card.trackerID), .integer(now.milliseconds),
                ])
            return database.changes == 1
        }
    }

    /// Kept in ReceivedDevices with `now` as when it came; a will of the same `connected` time changes nothing.
    public func storeLastWill(connected: Timestamp, device: String, at now: Timestamp) throws -> Bool {
        try write {
            try database.run(
                """
                INSERT INTO ReceivedDevices (Device, LastWillAt, LastWillConnected) VALUES (?1, ?2, ?3)
                ON CONFLICT (Device) DO UPDATE SET LastWillAt = ?2, LastWillConnected = ?3
                WHERE LastWillConnected IS NOT ?3
                """, [.text(Store.ownTracksKey(device)), .integer(now.milliseconds), .integer(connected.milliseconds)])
            return database.changes == 1
        }
    }

    // MARK: - Devices

    /// Every OwnTracks device `serve` heard from (a location, transition, waypoint, card or last will), by name.
    public func receivedDevices() throws -> [ReceivedDevice] {
        try sqlite {
            let sessionColumns = Store.sessionColumns.split(separator: ", ").map { "s." + $0 }.joined(separator: ", ")
            let s = try database.cachedStatement(
                """
                WITH Known (Device) AS (
                    SELECT Receiver FROM Sessions WHERE substr(Receiver, 1, 10) = 'owntracks:'
                    UNION SELECT Device FROM ReceivedDevices
                    UNION SELECT Device FROM ReceivedWaypoints)
                SELECT k.Device, d.CardName, d.CardFace, d.CardTrackerID, d.CardReceivedAt, d.LastWillAt,
                    d.LastWillConnected, (SELECT COUNT(*) FROM ReceivedWaypoints w WHERE w.Device = k.Device),
                    (SELECT MAX(e.TimeStamp) FROM EntryRows e WHERE e.SessionKey = s.Key), \(sessionColumns)
                FROM Known k
                LEFT JOIN Sessions s ON s.Receiver = k.Device
                LEFT JOIN ReceivedDevices d ON d.Device = k.Device
                ORDER BY k.Device
                """)
            defer { s.reset() }
            let time = { (column: Int32) in s.int64(at: column).map { Timestamp(milliseconds: $0) } }
            var devices: [ReceivedDevice] = []
            while try s.step() {
                var d = ReceivedDevice(device: Store.deviceName(s.string(at: 0) ?? ""), waypoints: s.int(at: 7) ?? 0)
                if let received = time(4) {
                    var face: [UInt8]?
                    if case .blob(let bytes) = s.value(at: 2) { face = bytes }
                    d.card = DeviceCard(name: s.string(at: 1), face: face, trackerID: s.string(at: 3))
                    d.cardReceived = received
                }
                d.lastWill = time(5)
                d.lastWillConnected = time(6)
                d.lastLocation = time(8)
                if !s.isNull(at: 10) { d.session = Store.readSession(s, offset: 9) }
                devices.append(d)
            }
            return devices
        }
    }
}
