// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// Transitions and visits in PostgreSQL, each stored once (by `transition_once` and `visit_once`).
enum PostgresEvents {
    /// Stores a transition of a session unless it holds it already (same time, event and region).
    /// - Parameters:
    ///   - t: the transition.
    ///   - session: the session's id (a UUID).
    ///   - regionKnown: false when the region's centre and radius are unknown (stored as NULL).
    ///   - db: the connection, inside the caller's transaction when it has one.
    /// - Returns: 1 when stored, 0 when it was there.
    /// - Throws: `PostgresError` (`.server` with the server's message, `.connectionLost`).
    static func insert(_ t: Transition, session: String, regionKnown: Bool, into db: PostgresDatabase) throws -> Int {
        var b = PostgresBindings()
        b.append(session)
        b.append(t.region.name)
        b.append(t.region.regionID)
        b.append(t.region.created.milliseconds)
        b.append(regionKnown ? t.region.latitude : nil)
        b.append(regionKnown ? t.region.longitude : nil)
        b.append(regionKnown ? t.region.radius : nil)
        b.append(t.event.rawValue)
        b.append(t.time.milliseconds)
        b.append(t.latitude)
        b.append(t.longitude)
        b.append(t.horizontalAccuracy)
        b.append(t.trigger?.rawValue)
        return try db.execute(
            """
            INSERT INTO transitions (session_id, region_name, region_id, region_created, region_latitude,
                region_longitude, region_radius, event, time, latitude, longitude, horizontal_accuracy, report_trigger)
            VALUES ($1::uuid, $2, $3, gpslog_time($4), $5, $6, $7, $8, gpslog_time($9), $10, $11, $12, $13)
            ON CONFLICT ON CONSTRAINT transition_once DO NOTHING
            """, b, doing: "storing a transition")
    }

    /// Stores a visit at its arrival. Later: `sync` (`replacing`) makes the stored one what SQLite holds now (its
    /// departure, place and address once it left, the name given to the place since); `serve` only gives it what it lacked (the departure of Overland's
    /// second record of a visit, a name the sender gave the place since; never one given here replaced), as the
    /// SQLite store does.
    /// - Returns: 1 when stored or changed, 0 when it was there as it is.
    static func upsert(_ v: Visit, session: String, replacing: Bool, into db: PostgresDatabase) throws -> Int {
        var b = PostgresBindings()
        b.append(session)
        b.append(v.arrival.milliseconds)
        b.append(v.departure?.milliseconds)
        b.append(v.latitude)
        b.append(v.longitude)
        b.append(v.horizontalAccuracy)
        b.append(PostgresRows.text(v.address))
        // Cut as SQLite cuts it: `serve` stores names as phones send them.
        b.append(PostgresRows.text(v.name.flatMap(Store.placeName)))
        let update =
            replacing
            ? """
            DO UPDATE SET departure = EXCLUDED.departure, latitude = EXCLUDED.latitude,
                longitude = EXCLUDED.longitude, horizontal_accuracy = EXCLUDED.horizontal_accuracy,
                address = EXCLUDED.address, name = EXCLUDED.name
            WHERE (visits.departure, visits.latitude, visits.longitude, visits.horizontal_accuracy, visits.address,
                visits.name)
                IS DISTINCT FROM (EXCLUDED.departure, EXCLUDED.latitude, EXCLUDED.longitude,
                EXCLUDED.horizontal_accuracy, EXCLUDED.address, EXCLUDED.name)
            """
            : """
            DO UPDATE SET departure = coalesce(visits.departure, EXCLUDED.departure),
                name = coalesce(visits.name, EXCLUDED.name)
            WHERE (visits.departure IS NULL AND EXCLUDED.departure IS NOT NULL)
                OR (visits.name IS NULL AND EXCLUDED.name IS NOT NULL)
            """
        return try db.execute(
            """
            INSERT INTO visits (session_id, arrival, departure, latitude, longitude, horizontal_accuracy, address, name)
            VALUES ($1::uuid, gpslog_time($2), gpslog_time($3), $4, $5, $6, $7, $8)
            ON CONFLICT ON CONSTRAINT visit_once
            """ + "\n" + update, b, doing: "storing a visit")
    }
}
