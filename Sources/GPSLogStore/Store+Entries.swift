// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// Every Entries column, in the order `readEntry` and `bindEntry` use.
    static let entryColumns = """
        Key, Session, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course, \
        Address, Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp, Label, Satellites, HDOP, \
        VDOP, PDOP, FixMode, SpeedAccuracy, CourseAccuracy, Motion, BatteryState, BatteryLevel, DeviceID, Wifi
        """

    static let insertEntrySQL = """
        INSERT INTO Entries (Session, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, \
        Speed, Course, Address, Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp, Label, \
        Satellites, HDOP, VDOP, PDOP, FixMode, SpeedAccuracy, CourseAccuracy, Motion, BatteryState, BatteryLevel, \
        DeviceID, Wifi) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, \
        ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)
        """

    /// Appends entries to a session in one transaction: all are stored, or none (the error names the entry).
    ///
    /// Call it with batches (hundreds to thousands of entries): one commit per batch is what makes imports fast,
    /// and the recorder commits at least once a second.
    /// - Returns: the row keys of the new entries, in order.
    @discardableResult
    public func append(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        try database.transaction { try appendInTransaction(entries, to: sessionID) }
    }

    /// Appends entries inside a transaction the caller already opened (imports that span several calls).
    @discardableResult
    public func appendInTransaction(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        let statement = try database.cachedStatement(Store.insertEntrySQL)
        var keys: [Int64] = []
        keys.reserveCapacity(entries.count)
        // The two 36-character ids are bound without a copy (see `bindNoCopy`); every other parameter is bound
        // for every row, so the bindings need no clearing between rows.
        var session = sessionID
        try session.withUTF8 { sessionBytes in
            for (index, entry) in entries.enumerated() {
                var id = entry.id
                do {
                    try id.withUTF8 { idBytes in
                        try statement.bindNoCopy(sessionBytes, at: 1)
                        try statement.bindNoCopy(idBytes, at: 12)
                        try bindEntry(entry, to: statement)
                        try statement.step()
                        statement.reset(clearingBindings: false)
                    }
                } catch let error as SQLiteError {
                    statement.reset()
                    let reason = error.isConstraintViolation ? Store.explain(error) : error.message
                    throw StoreError.invalidEntry(index: index, time: entry.time.iso8601(), reason: reason)
                }
                keys.append(database.lastInsertRowID)
            }
        }
        statement.reset()
        onAppend?(entries.count)
        return keys
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE), rolled back whole if it throws.
    public func write<T>(_ body: () throws -> T) throws -> T {
        try database.transaction(.immediate, body)
    }

    /// Binds every parameter of `insertEntrySQL` but the two ids (1: Session, 12: EntryID).
    private func bindEntry(_ e: Entry, to s: Statement) throws {
        try s.bind(e.latitude, at: 2)
        try s.bind(e.longitude, at: 3)
        try s.bind(e.altitude, at: 4)
        try s.bind(e.horizontalAccuracy, at: 5)
        try s.bind(e.verticalAccuracy, at: 6)
        try s.bind(e.time.milliseconds, at: 7)
        try s.bind(e.speed, at: 8)
        try s.bind(e.course, at: 9)
        try s.bind(e.address, at: 10)
        try s.bind(e.marked, at: 11)
        try s.bind(e.instanceCount, at: 13)
        try s.bind(e.heading, at: 14)
        try s.bind(e.isHeadingChanged, at: 15)
        try s.bind(e.headingTime?.milliseconds, at: 16)
        try s.bind(e.label, at: 17)
        try s.bind(e.satellites, at: 18)
        try s.bind(e.hdop, at: 19)
        try s.bind(e.vdop, at: 20)
        try s.bind(e.pdop, at: 21)
        try s.bind(e.fixMode?.rawValue, at: 22)
        try s.bind(e.speedAccuracy, at: 23)
        try s.bind(e.courseAccuracy, at: 24)
        try s.bind(e.motion.map(Store.encodeMotion), at: 25)
        try s.bind(e.batteryState?.rawValue, at: 26)
        try s.bind(e.batteryLevel, at: 27)
        try s.bind(e.deviceID, at: 28)
        try s.bind(e.wifi, at: 29)
    }

    static func readEntry(_ s: Statement) -> Entry {
        Entry(
            key: s.int64(at: 0), id: s.string(at: 12) ?? "", latitude: s.double(at: 2) ?? 0,
            longitude: s.double(at: 3) ?? 0, altitude: s.double(at: 4), horizontalAccuracy: s.double(at: 5),
            verticalAccuracy: s.double(at: 6), time: Timestamp(milliseconds: s.int64(at: 7) ?? 0),
            speed: s.double(at: 8), course: s.double(at: 9), address: s.string(at: 10),
            marked: s.int64(at: 11) == 1, label: s.string(at: 17), instanceCount: s.int(at: 13) ?? 1,
            heading: s.double(at: 14), isHeadingChanged: s.int64(at: 15) == 1,
            headingTime: s.int64(at: 16).map { Timestamp(milliseconds: $0) }, satellites: s.int(at: 18),
            hdop: s.double(at: 19), vdop: s.double(at: 20), pdop: s.double(at: 21),
            fixMode: s.int(at: 22).flatMap(FixMode.init(rawValue:)), speedAccuracy: s.double(at: 23),
            courseAccuracy: s.double(at: 24), motion: s.string(at: 25).flatMap(Store.decodeMotion),
            batteryState: s.string(at: 26).flatMap(BatteryState.init(rawValue:)), batteryLevel: s.double(at: 27),
            deviceID: s.string(at: 28), wifi: s.string(at: 29))
    }

    /// Overland's motion list as the JSON array text the Motion column holds.
    static func encodeMotion(_ motion: [String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: motion, options: [.withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeMotion(_ text: String) -> [String]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]
    }

    /// Turns a constraint failure into words: SQLite names the constraint ("CHECK constraint failed:
    /// latitude_in_range"), and the schema names each constraint after the rule it enforces.
    static func explain(_ error: SQLiteError) -> String {
        let m = error.message
        if let range = m.range(of: "CHECK constraint failed: ") {
            return "it breaks the rule \(m[range.upperBound...]) (\(m))"
        }
        if m.hasPrefix("FOREIGN KEY") { return "its session does not exist (\(m))" }
        if m.hasPrefix("UNIQUE constraint failed: Entries.EntryID") { return "an entry with the same EntryID already exists (\(m))" }
        return m
    }

    // MARK: - Reading

    /// A cursor over a session's entries in time order (ties in insertion order). It reads one row at a time, so
    /// memory stays flat whatever the session's size.
    /// - Parameters:
    ///   - from: first time included, when given.
    ///   - to: last time included, when given.
    public func entries(of sessionID: String, from: Timestamp? = nil, to: Timestamp? = nil) throws -> EntryCursor {
        // A fresh statement, not the cache: two cursors may be open at once (merging sessions in an export).
        let statement = try database.makeStatement("""
            SELECT \(Store.entryColumns) FROM Entries
            WHERE Session = ?1 AND TimeStamp >= ?2 AND TimeStamp <= ?3
            ORDER BY TimeStamp, Key
            """)
        try statement.bind(sessionID, at: 1)
        try statement.bind(from?.milliseconds ?? Int64.min, at: 2)
        try statement.bind(to?.milliseconds ?? Int64.max, at: 3)
        return EntryCursor(statement: statement)
    }

    /// The entry with this EntryID.
    public func entry(id: String) throws -> Entry? {
        let s = try database.cachedStatement("SELECT \(Store.entryColumns) FROM Entries WHERE EntryID = ?")
        defer { s.reset() }
        try s.bind(id, at: 1)
        return try s.step() ? Store.readEntry(s) : nil
    }

    // MARK: - Updating

    /// Writes a reverse-geocoded address into an entry (GPS Log's asynchronous address update).
    /// - Returns: false when no entry has this key.
    @discardableResult
    public func updateAddress(entryKey: Int64, address: String?) throws -> Bool {
        try database.run("UPDATE Entries SET Address = ? WHERE Key = ?", [SQLiteValue(address), .integer(entryKey)])
        return database.changes == 1
    }

    /// Sets an entry's instance count (the sampler's "same place again").
    public func setInstanceCount(entryKey: Int64, to count: Int) throws {
        try database.run("UPDATE Entries SET InstanceCount = ? WHERE Key = ?", [.integer(Int64(count)), .integer(entryKey)])
    }
}

/// Streams entries out of a query one row at a time. It owns its statement, which is finalized with it.
public final class EntryCursor {
    private let statement: Statement
    private var done = false

    init(statement: Statement) { self.statement = statement }

    /// The next entry, or nil at the end.
    public func next() throws -> Entry? {
        guard !done else { return nil }
        guard try statement.step() else {
            done = true
            statement.reset()
            return nil
        }
        return Store.readEntry(statement)
    }

    /// Calls `body` for each remaining entry.
    public func forEach(_ body: (Entry) throws -> Void) throws {
        while let entry = try next() { try body(entry) }
    }
}

@available(*, unavailable)
extension EntryCursor: Sendable {}
