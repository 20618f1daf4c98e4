// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    // MARK: - Tracking events (the automatic pause and its resume)

    /// Stores what a recording did at a fix (`TrackingEvents`); returns the row's key.
    @discardableResult
    public func addTrackingEvent(_ event: TrackingEvent, to sessionID: String) throws -> Int64 {
        try sqlite {
            try database.run(
                "INSERT INTO TrackingEvents (Session, Action, TimeStamp, Latitude, Longitude) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(sessionID), .text(event.action.rawValue), .integer(event.time.milliseconds),
                    .real(event.latitude), .real(event.longitude),
                ])
            return database.lastInsertRowID
        }
    }

    /// A session's tracking events in time order (a few a day: read whole).
    public func trackingEvents(of sessionID: String) throws -> [TrackingEvent] {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT Key, Action, TimeStamp, Latitude, Longitude FROM TrackingEvents
                WHERE Session = ? ORDER BY TimeStamp, Key
                """)
            defer { s.reset() }
            try s.bind(sessionID, at: 1)
            var events: [TrackingEvent] = []
            while try s.step() {
                // The CHECK keeps Action to the known names.
                guard let action = s.string(at: 1).flatMap(TrackingAction.init(rawValue:)) else { continue }
                events.append(
                    TrackingEvent(
                        key: s.requiredInt64(at: 0), action: action,
                        time: Timestamp(milliseconds: s.requiredInt64(at: 2)), latitude: s.requiredDouble(at: 3),
                        longitude: s.requiredDouble(at: 4)))
            }
            return events
        }
    }

    // MARK: - Visits

    /// Stores a visit (at its arrival, usually without a departure yet), with its place's name when it has one
    /// (an imported visit; cut as `setVisitName` cuts it); returns the row's key.
    @discardableResult
    public func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64 {
        try sqlite {
            try database.run(
                """
                INSERT INTO Visits (Session, Latitude, Longitude, HorizontalAccuracy, ArrivalTime, DepartureTime, Address,
                    Name)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(sessionID), .real(visit.latitude), .real(visit.longitude), .real(visit.horizontalAccuracy),
                    .integer(visit.arrival.milliseconds), SQLiteValue(visit.departure?.milliseconds),
                    SQLiteValue(visit.address?.truncated(to: TextLimit.address)),
                    SQLiteValue(visit.name.flatMap(Self.placeName)),
                ])
            return database.lastInsertRowID
        }
    }

    /// Sets a stored visit's departure, and its place as measured over the whole stay.
    public func setDeparture(of visit: Visit) throws {
        guard let key = visit.key else { return }
        try sqlite {
            try database.run(
                "UPDATE Visits SET DepartureTime = ?, Latitude = ?, Longitude = ?, HorizontalAccuracy = ? WHERE Key = ?",
                [
                    SQLiteValue(visit.departure?.milliseconds), .real(visit.latitude), .real(visit.longitude),
                    .real(visit.horizontalAccuracy), .integer(key),
                ])
        }
    }

    /// Writes a visit's reverse-geocoded address.
    public func setVisitAddress(_ address: String?, key: Int64) throws {
        try sqlite {
            try database.run(
                "UPDATE Visits SET Address = ? WHERE Key = ?",
                [SQLiteValue(address?.truncated(to: TextLimit.address)), .integer(key)])
        }
    }

    /// A session's visits by arrival (a few a day: read whole).
    public func visits(of sessionID: String) throws -> [Visit] {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT Key, Latitude, Longitude, HorizontalAccuracy, ArrivalTime, DepartureTime, Address, Name
                FROM Visits WHERE Session = ? ORDER BY ArrivalTime, Key
                """)
            defer { s.reset() }
            try s.bind(sessionID, at: 1)
            var visits: [Visit] = []
            while try s.step() {
                visits.append(
                    Visit(
                        key: s.requiredInt64(at: 0), latitude: s.requiredDouble(at: 1),
                        longitude: s.requiredDouble(at: 2), horizontalAccuracy: s.requiredDouble(at: 3),
                        arrival: Timestamp(milliseconds: s.requiredInt64(at: 4)),
                        departure: s.int64(at: 5).map { Timestamp(milliseconds: $0) }, address: s.string(at: 6),
                        name: s.string(at: 7)))
            }
            return visits
        }
    }

    /// Names stored visits' place (`gpslog visit rename`); nil takes the name away. Returns how many rows changed.
    /// The name is kept as `placeName` makes it.
    @discardableResult
    public func setVisitName(_ name: String?, keys: [Int64]) throws -> Int {
        let name = name.flatMap(Self.placeName)
        return try sqlite {
            try database.transaction {
                var changed = 0
                for key in keys {
                    try database.run("UPDATE Visits SET Name = ? WHERE Key = ?", [SQLiteValue(name), .integer(key)])
                    changed += database.changes
                }
                return changed
            }
        }
    }

    /// A place's name as `Visits.Name` keeps it: without surrounding white space, nil when blank, cut to
    /// `TextLimit.placeName` Unicode scalars (what the column's `length()` counts: a cut by characters could leave
    /// more scalars than that, combining accents, and break the CHECK).
    public static func placeName(_ name: String) -> String? {
        // SQLite's length() stops at a NUL, so the CHECK would see a name that holds one as shorter (or empty):
        // it becomes U+FFFD, as the PostgreSQL store writes it.
        let trimmed = name.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}").trimmedWhitespace
        guard !trimmed.isEmpty else { return nil }
        let scalars = trimmed.unicodeScalars
        guard scalars.count > TextLimit.placeName else { return trimmed }
        var cut = String.UnicodeScalarView(scalars.prefix(TextLimit.placeName - 1))
        cut.append("…")
        return String(cut)
    }

    /// Deletes stored visits (`gpslog visit delete`); returns how many rows went.
    @discardableResult
    public func deleteVisits(keys: [Int64]) throws -> Int {
        try sqlite {
            try database.transaction {
                var deleted = 0
                for key in keys {
                    try database.run("DELETE FROM Visits WHERE Key = ?", [.integer(key)])
                    deleted += database.changes
                }
                return deleted
            }
        }
    }

    /// One stored visit and its session's id; nil when no visit has this key.
    public func visit(key: Int64) throws -> (visit: Visit, session: String)? {
        try sqlite {
            let s = try database.cachedStatement("SELECT Session FROM Visits WHERE Key = ?")
            defer { s.reset() }
            try s.bind(.integer(key), at: 1)
            guard try s.step(), let session = s.string(at: 0) else { return nil }
            s.reset()
            return try visits(of: session).first { $0.key == key }.map { ($0, session) }
        }
    }
}
