// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// A session's rows out of PostgreSQL: windows of the track, pages of marks, and what an export reads.
extension PostgresSessionReader {
    /// Which of a session's rows a read takes.
    enum Rows {
        case all, track, marks, headingChanges
        /// Track points, and marks too when `marks`.
        case trackAndMarks(Bool)

        var sql: String {
            switch self {
            case .all: "true"
            case .track: "NOT marked AND NOT is_heading_changed"
            case .marks: "marked"
            case .headingChanges: "is_heading_changed"
            case .trackAndMarks(let marks): marks ? "NOT is_heading_changed" : "NOT marked AND NOT is_heading_changed"
            }
        }
    }

    static let key = PostgresKey.sql("id")

    /// The columns `entry(_:)` reads, in its order.
    static let entryColumns = """
        id::text, gpslog_ms(time), latitude, longitude, altitude, horizontal_accuracy, vertical_accuracy, speed,
        course, address, marked, label, instance_count::int8, heading, is_heading_changed, gpslog_ms(heading_time),
        satellites::int8, hdop, vdop, pdop, fix_mode::int8, speed_accuracy, course_accuracy, motion, battery_state,
        battery_level, device_id, wifi, starts_segment, monitoring::int8, report_trigger, in_regions, tag, is_poi,
        attributes::text
        """

    /// The columns of `EntryFields.position`, in the order `positionEntry(_:)` reads them: a third of the columns,
    /// and no id text, as the SQLite store reads them (decoding every column of a page costs more than the query).
    static let positionColumns =
        "\(key), gpslog_ms(time), latitude, longitude, marked, is_heading_changed, starts_segment"

    /// The columns of `EntryFields.track`, in the order `trackEntry(_:)` reads them.
    static let trackColumns = """
        \(key), gpslog_ms(time), latitude, longitude, altitude, speed, course, marked, is_heading_changed,
        instance_count::int8, satellites::int8, hdop, vdop, pdop, fix_mode::int8, starts_segment, attributes::text
        """

    /// The columns a read of `fields` selects, and how a row of them becomes an entry.
    static func reading(_ fields: EntryFields) -> (columns: String, entry: (PostgresRow) throws -> Entry) {
        switch fields {
        case .all: (entryColumns, entry)
        case .track: (trackColumns, trackEntry)
        case .position: (positionColumns, positionEntry)
        }
    }

    static func positionEntry(_ row: PostgresRow) throws -> Entry {
        let (key, ms, latitude, longitude, marked, heading, segment) = try row.decode(
            (Int64, Int64, Double, Double, Bool, Bool, Bool).self)
        var e = Entry(
            key: key, id: "", latitude: latitude, longitude: longitude, time: Timestamp(milliseconds: ms),
            marked: marked, isHeadingChanged: heading)
        e.startsSegment = segment
        return e
    }

    static func trackEntry(_ row: PostgresRow) throws -> Entry {
        let c = row.makeRandomAccess()
        var e = Entry(
            key: try c[0].decode(Int64.self), id: "", latitude: try c[2].decode(Double.self),
            longitude: try c[3].decode(Double.self), altitude: try c[4].decode(Double?.self),
            time: Timestamp(milliseconds: try c[1].decode(Int64.self)), speed: try c[5].decode(Double?.self),
            course: try c[6].decode(Double?.self), marked: try c[7].decode(Bool.self),
            instanceCount: try c[9].decode(Int.self), isHeadingChanged: try c[8].decode(Bool.self))
        e.satellites = try c[10].decode(Int?.self)
        e.hdop = try c[11].decode(Double?.self)
        e.vdop = try c[12].decode(Double?.self)
        e.pdop = try c[13].decode(Double?.self)
        e.fixMode = try c[14].decode(Int?.self).flatMap(FixMode.init(rawValue:))
        e.startsSegment = try c[15].decode(Bool.self)
        e.attributes = attributes(try c[16].decode(String?.self))
        return e
    }

    /// The texts of an `attributes` object; nil without one.
    static func attributes(_ json: String?) -> [String: String]? {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        else { return nil }
        return object.compactMapValues { $0 as? String }
    }

    static func entry(_ row: PostgresRow) throws -> Entry {
        let c = row.makeRandomAccess()
        let id = try c[0].decode(String.self)
        var e = Entry(
            key: PostgresKey.key(of: id), id: id, latitude: try c[2].decode(Double.self),
            longitude: try c[3].decode(Double.self), altitude: try c[4].decode(Double?.self),
            horizontalAccuracy: try c[5].decode(Double?.self), verticalAccuracy: try c[6].decode(Double?.self),
            time: Timestamp(milliseconds: try c[1].decode(Int64.self)), speed: try c[7].decode(Double?.self),
            course: try c[8].decode(Double?.self), address: try c[9].decode(String?.self),
            marked: try c[10].decode(Bool.self), label: try c[11].decode(String?.self),
            instanceCount: try c[12].decode(Int.self), heading: try c[13].decode(Double?.self),
            isHeadingChanged: try c[14].decode(Bool.self),
            headingTime: try c[15].decode(Int64?.self).map(Timestamp.init(milliseconds:)),
            satellites: try c[16].decode(Int?.self), hdop: try c[17].decode(Double?.self),
            vdop: try c[18].decode(Double?.self), pdop: try c[19].decode(Double?.self),
            fixMode: try c[20].decode(Int?.self).flatMap(FixMode.init(rawValue:)),
            speedAccuracy: try c[21].decode(Double?.self), courseAccuracy: try c[22].decode(Double?.self),
            motion: try c[23].decode([String]?.self),
            batteryState: try c[24].decode(String?.self).flatMap(BatteryState.init(rawValue:)),
            batteryLevel: try c[25].decode(Double?.self), deviceID: try c[26].decode(String?.self),
            wifi: try c[27].decode(String?.self), startsSegment: try c[28].decode(Bool.self),
            monitoring: try c[29].decode(Int?.self).flatMap(MonitoringMode.init(rawValue:)),
            trigger: try c[30].decode(String?.self).flatMap(ReportTrigger.init(rawValue:)),
            inRegions: try c[31].decode([String]?.self), tag: try c[32].decode(String?.self),
            isPOI: try c[33].decode(Bool.self))
        e.attributes = attributes(try c[34].decode(String?.self))
        return e
    }

    /// One query's rows of session `sessionID`: `rows` in `from`...`to`, after the row `after` (its time and key),
    /// in time and key order, at most `limit`, with `fields` filled.
    func page(
        _ sessionID: String, _ rows: Rows, from: Timestamp?, to: Timestamp?, after: (time: Int64, key: Int64)?,
        limit: Int, descending: Bool = false, fields: EntryFields = .all
    ) throws -> [Entry] {
        var binds = PostgresBindings()
        binds.append(sessionID)
        var clauses = ["session_id = $1::uuid", rows.sql]
        if let from {
            binds.append(from.milliseconds)
            clauses.append("time >= gpslog_time($\(binds.count))")
        }
        if let to {
            binds.append(to.milliseconds)
            clauses.append("time <= gpslog_time($\(binds.count))")
        }
        if let after {
            binds.append(after.time)
            let t = binds.count
            binds.append(after.key)
            // A row comparison, so the scan of entries_session_time_key starts at the cursor.
            clauses.append("(time, \(Self.key)) > (gpslog_time($\(t)), $\(t + 1)::int8)")
        }
        binds.append(limit)
        let order = descending ? "time DESC, \(Self.key) DESC" : "time, \(Self.key)"
        let (columns, entry) = Self.reading(fields)
        return try database.query(
            """
            SELECT \(columns) FROM entries WHERE \(clauses.joined(separator: " AND "))
            ORDER BY \(order) LIMIT $\(binds.count)
            """, binds, doing: "reading a session's entries"
        ).map(entry)
    }

    /// A cursor over `rows` in `from`...`to` after `after`, read a page at a time; at most `limit` rows (nil: all),
    /// with `fields` filled.
    func stream(
        _ sessionID: String, _ rows: Rows, from: Timestamp?, to: Timestamp?, after: (time: Int64, key: Int64)? = nil,
        limit: Int? = nil, fields: EntryFields = .all
    ) -> EntryCursor {
        var buffered: [Entry] = []
        var next = 0
        var last = after
        var left = limit ?? Int.max
        var exhausted = false
        return EntryCursor { [self] in
            guard left > 0 else { return nil }
            if next == buffered.count {
                guard !exhausted else { return nil }
                let size = min(Self.pageSize, left)
                buffered = try page(sessionID, rows, from: from, to: to, after: last, limit: size, fields: fields)
                next = 0
                exhausted = buffered.count < size
                guard !buffered.isEmpty else { return nil }
            }
            let e = buffered[next]
            next += 1
            left -= 1
            last = (e.time.milliseconds, e.key ?? 0)
            return e
        }
    }

    // MARK: - SessionReader

    /// Every row in the range, in time order, read a page at a time, with `fields` filled.
    public func entries(of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields) throws
        -> EntryCursor
    {
        stream(sessionID, .all, from: from, to: to, fields: fields)
    }

    /// How many rows the range holds.
    public func entryCount(of sessionID: String, from: Timestamp?, to: Timestamp?) throws -> Int {
        var binds = PostgresBindings()
        binds.append(sessionID)
        binds.append(from?.milliseconds ?? -62_135_596_800_000)  // 0001-01-01: PostgreSQL's times start far before
        binds.append(to?.milliseconds ?? 253_402_300_799_999)  // 9999-12-31
        let count = try database.query(
            """
            SELECT count(*)::int8 FROM entries
            WHERE session_id = $1::uuid AND time >= gpslog_time($2) AND time <= gpslog_time($3)
            """, binds, doing: "counting a session's entries"
        ).first?.decode(Int64.self)
        return Int(count ?? 0)
    }

    /// The newest track point; nil without any.
    public func lastTrackPoint(of sessionID: String) throws -> Entry? {
        try page(sessionID, .track, from: nil, to: nil, after: nil, limit: 1, descending: true).first
    }

    /// `count` track points spread evenly in time over the range: the first at or after the start of each of
    /// `count` equal slices, in one query of `count` index seeks (a slice without a point gives the next one after
    /// it, kept once), as the SQLite store samples.
    public func sampledTrackPoints(of sessionID: String, from: Timestamp, to: Timestamp, count: Int) throws
        -> [Entry]
    {
        var binds = PostgresBindings()
        binds.append(sessionID)
        binds.append(from.milliseconds)
        binds.append(to.milliseconds)
        binds.append(max(1, count))
        let rows = try database.query(Self.sampleQuery, binds, doing: "sampling a session's track")
        var seen = Set<String>()
        return try rows.map(Self.entry).filter { seen.insert($0.id).inserted }
    }

    /// The query of `sampledTrackPoints`: $1 the session, $2 and $3 the range (gpslog milliseconds), $4 the count.
    /// Each seek is an ordered scan of entries_session_time_key that stops at its first row, whatever the planner
    /// knows of the table.
    static let sampleQuery = """
        SELECT e.* FROM generate_series(0, $4::int8 - 1) AS g(i)
        CROSS JOIN LATERAL (
            SELECT \(entryColumns) FROM entries
            WHERE session_id = $1::uuid AND NOT marked AND NOT is_heading_changed AND time <= gpslog_time($3)
                AND time >= gpslog_time($2 + floor(($3 - $2)::float8 * g.i / $4)::int8)
            ORDER BY time, \(key) LIMIT 1
        ) e
        ORDER BY g.i
        """

    /// The heading changes in the range, read a page at a time.
    public func headingChanges(of sessionID: String, from: Timestamp?, to: Timestamp?) throws -> EntryCursor {
        stream(sessionID, .headingChanges, from: from, to: to)
    }

    /// Track points (and marks, with `marks`) after the cursor `after`, at most `limit` (-1: all).
    public func trackPoints(of sessionID: String, after: (time: Int64, key: Int64)?, limit: Int, marks: Bool) throws
        -> EntryCursor
    {
        stream(sessionID, .trackAndMarks(marks), from: nil, to: nil, after: after, limit: limit < 0 ? nil : limit)
    }

    /// At most `limit` marks after the cursor `after`.
    public func marks(of sessionID: String, after: (time: Int64, key: Int64)?, limit: Int) throws -> [Entry] {
        try page(sessionID, .marks, from: nil, to: nil, after: after, limit: max(0, limit))
    }

    // MARK: - SessionSource

    /// A session's marks in time order, within the range, streamed.
    public func forEachMark(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void)
        throws
    {
        try stream(sessionID, .marks, from: from, to: to).forEach(body)
    }

    /// Every row of a session in time order, within the range, streamed.
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void
    ) throws {
        try stream(sessionID, .all, from: from, to: to, fields: fields).forEach(body)
    }

    /// `forEachEntry` with only the track points whose key is in `kept` (marks and heading changes all).
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields,
        keepingTrackPoints kept: Set<Int64>, _ body: (Entry) throws -> Void
    ) throws {
        try stream(sessionID, .all, from: from, to: to, fields: fields).forEach { e in
            if !e.marked && !e.isHeadingChanged && !kept.contains(e.key ?? 0) { return }
            try body(e)
        }
    }

    /// A session's visits by arrival.
    public func visits(of sessionID: String) throws -> [Visit] {
        var binds = PostgresBindings()
        binds.append(sessionID)
        return try database.query(
            """
            SELECT id, latitude, longitude, horizontal_accuracy, gpslog_ms(arrival), gpslog_ms(departure), address, name
            FROM visits WHERE session_id = $1::uuid ORDER BY arrival, id
            """, binds, doing: "reading a session's visits"
        ).map { row in
            let (key, lat, lon, accuracy, arrival, departure, address, name) = try row.decode(
                (Int64, Double, Double, Double, Int64, Int64?, String?, String?).self)
            return Visit(
                key: key, latitude: lat, longitude: lon, horizontalAccuracy: accuracy,
                arrival: Timestamp(milliseconds: arrival), departure: departure.map(Timestamp.init(milliseconds:)),
                address: address, name: name)
        }
    }

    /// A session's region transitions in time order.
    public func transitions(of sessionID: String) throws -> [Transition] {
        var binds = PostgresBindings()
        binds.append(sessionID)
        return try database.query(
            """
            SELECT id, region_name, region_id, gpslog_ms(region_created), region_latitude, region_longitude,
                region_radius, event, gpslog_ms(time), latitude, longitude, horizontal_accuracy, report_trigger
            FROM transitions WHERE session_id = $1::uuid ORDER BY time, id
            """, binds, doing: "reading a session's transitions"
        ).map { row in
            let c = row.makeRandomAccess()
            let regionLatitude = try c[4].decode(Double?.self)
            let regionLongitude = try c[5].decode(Double?.self)
            let radius = try c[6].decode(Double?.self)
            let (latitude, longitude) = (try c[9].decode(Double.self), try c[10].decode(Double.self))
            // A region the device never sent stands at the transition's place with no radius (as `Transition` says).
            let region = Region(
                name: try c[1].decode(String.self), latitude: regionLatitude ?? latitude,
                longitude: regionLongitude ?? longitude, radius: radius ?? 0, regionID: try c[2].decode(String.self),
                created: Timestamp(milliseconds: try c[3].decode(Int64.self)))
            var t = Transition(
                key: try c[0].decode(Int64.self), region: region,
                event: RegionEvent(rawValue: try c[7].decode(String.self)) ?? .enter,
                time: Timestamp(milliseconds: try c[8].decode(Int64.self)), latitude: latitude, longitude: longitude,
                horizontalAccuracy: try c[11].decode(Double?.self),
                trigger: try c[12].decode(String?.self).flatMap(TransitionTrigger.init(rawValue:)))
            t.regionIsKnown = regionLatitude != nil && regionLongitude != nil && radius != nil
            return t
        }
    }
}
