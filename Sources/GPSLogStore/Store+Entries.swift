// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// Every EntryRows column, in the order `readEntry` uses (`SessionKey` where the Entries view has `Session`; the
    /// columns Extras holds are read out of it by `EntryExtras.read`).
    static let entryColumns = """
        Key, SessionKey, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course, \
        Address, Marked, EntryID, InstanceCount, IsHeadingChanged, Satellites, HDOP, VDOP, PDOP, FixMode, Extras
        """

    /// The EntryRows columns an insert writes: the session's key, then `valuesPerRow` per row (parameters
    /// 2...20 for the first row).
    static let insertColumns = """
        SessionKey, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course, \
        Address, Marked, EntryID, InstanceCount, IsHeadingChanged, Satellites, HDOP, VDOP, PDOP, FixMode, Extras
        """

    /// The values of one row in an insert (all its columns but the key and the session's).
    static let valuesPerRow = 19

    /// Rows per multi-row INSERT. Each statement run costs SQLite a fixed overhead (opening the write on the
    /// B-trees, a statement savepoint) about as large as storing a row; 32 rows per statement pay it once for 32
    /// (measured: a 1M-point GPX import 30 % faster). 32 x 19 + 1 = 609 parameters, far under SQLite's limit.
    static let rowsPerInsert = 32

    /// An INSERT of `rows` rows of one session: ?1 is the session's key, row r's values are ?(2 + 19r) ... ?(20 + 19r).
    static func insertEntrySQL(rows: Int) -> String {
        let n = valuesPerRow
        let values = (0..<rows).map { r in
            "(?1, " + (0..<n).map { "?\(2 + r * n + $0)" }.joined(separator: ", ") + ")"
        }
        return "INSERT INTO EntryRows (\(insertColumns)) VALUES " + values.joined(separator: ", ")
    }

    private static let insertOneSQL = insertEntrySQL(rows: 1)
    private static let insertManySQL = insertEntrySQL(rows: rowsPerInsert)

    /// Appends entries to a session in one transaction: all are stored, or none (the error names the entry).
    ///
    /// Call it with batches (hundreds to thousands of entries): one commit per batch is what makes imports fast,
    /// and the recorder commits at least once a second.
    /// - Returns: the row keys of the new entries, in order.
    @discardableResult
    public func append(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        return try sqlite {
            try database.transaction { try appendInTransaction(entries, to: sessionID) }
        }
    }

    /// Appends entries inside a transaction the caller already opened (imports that span several calls).
    @discardableResult
    public func appendInTransaction(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        let entries = Store.withinTextLimits(entries)
        return try sqlite {
            // No such session: a key no session has, so that the insert fails on the foreign key as it always did.
            let known = try sessionKey(of: sessionID)
            let rows = Rows(entries: entries, session: known ?? -1)
            let keys: [Int64]
            do {
                let refused = checksInSwift ? try firstRefusedInSwift(rows, session: sessionID) : nil
                if let taken = try firstTakenID(entries, stored: rows.ids),
                    taken < refused?.index ?? .max || (taken == refused?.index && refused?.rule == nil)
                {
                    try refuseTakenID(rows, at: taken)
                }
                if let refused { try refuse(rows, at: refused.index, rule: refused.rule) }
                keys = try insertRows(rows, upTo: entries.count)
            } catch {
                // Some rows may be in (every caller rolls back today): should one commit them, the session's figures
                // are counted again at the next read instead of being wrong.
                if let known { try? forgetSummary(sessionKey: known) }
                throw error
            }
            if let known {
                try keepSummary(of: known, inserted: entries, keys: keys)
                try keepDays(of: entries, sessionKey: known)
                try keepHistory(of: known, inserted: entries, keys: keys)
            }
            onAppend?(entries.count)
            return keys
        }
    }

    /// Fails the append at `rows.entries[index]`, whose id is taken, with the error SQLite gives in its order: a
    /// refused row before it, or on this row NOT NULL and a CHECK, speak first; UNIQUE comes before the missing
    /// session (a foreign key is checked at the statement's end).
    private func refuseTakenID(_ rows: Rows, at index: Int) throws -> Never {
        _ = try insertRows(rows, upTo: index)
        do {
            try insertOne(rows, at: index, with: try oneRowInsert())
        } catch let error as SQLiteError where error.constraintKind != .foreignKey {
            throw Store.invalidEntry(rows.entries, at: index, error)
        } catch is SQLiteError {
            // The missing session: the id speaks first.
        }
        throw StoreError.invalidEntry(
            index: index, time: rows.entries[index].time.iso8601(), reason: Store.duplicateID)
    }

    /// A batch about to be inserted: its entries, their ids in stored form, and their session's key.
    struct Rows {
        var entries: [Entry]
        var ids: [StoredEntryID]
        var session: Int64

        init(entries: [Entry], session: Int64) {
            self.entries = entries
            // Through the buffer, by index: `map` would copy each Entry (retaining and releasing its strings).
            ids = entries.withUnsafeBufferPointer { b in
                (0..<b.count).map { StoredEntryID(b[$0].id, time: b[$0].time.milliseconds) }
            }
            self.session = session
        }
    }

    /// Inserts `rows.entries[..<end]`, `rowsPerInsert` to a statement; a failure names the entry that caused it.
    func insertRows(_ rows: Rows, upTo end: Int) throws -> [Int64] {
        let entries = rows.entries
        var keys: [Int64] = []
        keys.reserveCapacity(end)
        var start = 0
        let many = Store.rowsPerInsert
        if end >= many {
            let statement = try database.cachedStatement(Store.insertManySQL)
            while end - start >= many {
                do {
                    try statement.bind(rows.session, at: 1)
                    for r in 0..<many {
                        try bindEntry(entries[start + r], id: rows.ids[start + r], to: statement, row: r)
                    }
                    try statement.step()
                    // Every parameter is bound again for the next rows: clearing them first would be wasted work.
                    statement.resetKeepingBindings()
                } catch let error as SQLiteError {
                    statement.reset()
                    if error.isConstraintViolation {
                        // A broken constraint undoes just this statement: insert its rows one by one, so the
                        // error names the entry that breaks it.
                        _ = try appendOneByOne(rows, from: start, count: many)
                    }
                    throw Store.invalidEntry(entries, at: start, error)
                }
                // A new row's key is one more than the largest key so far, so one statement's rows take
                // consecutive keys, in order.
                let last = database.lastInsertRowID
                keys += ((last - Int64(many) + 1)...last)
                start += many
            }
        }
        keys += try appendOneByOne(rows, from: start, count: end - start)
        return keys
    }

    /// Inserts `rows.entries[from ..< from + count]` one statement each; a failure names the entry's index.
    private func appendOneByOne(_ rows: Rows, from: Int, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        let statement = try database.cachedStatement(Store.insertOneSQL)
        var keys: [Int64] = []
        keys.reserveCapacity(count)
        for index in from..<(from + count) {
            do {
                try insertOne(rows, at: index, with: statement)
            } catch let error as SQLiteError {
                throw Store.invalidEntry(rows.entries, at: index, error)
            }
            keys.append(database.lastInsertRowID)
        }
        return keys
    }

    /// Inserts one entry with `statement` (an `insertEntrySQL(rows: 1)`, from `oneRowInsert()`), throwing SQLite's
    /// error as it is.
    func insertOne(_ rows: Rows, at index: Int, with statement: Statement) throws {
        defer { statement.reset() }
        try statement.bind(rows.session, at: 1)
        try bindEntry(rows.entries[index], id: rows.ids[index], to: statement, row: 0)
        try statement.step()
    }

    /// The cached one-row INSERT.
    func oneRowInsert() throws -> Statement { try database.cachedStatement(Store.insertOneSQL) }

    /// The entries with every text cut to its `TextLimit` (the same array, uncopied, when none is too long).
    static func withinTextLimits(_ entries: [Entry]) -> [Entry] {
        @inline(__always) func tooLong(_ text: String?, _ limit: Int) -> Bool { (text?.utf8.count ?? 0) > limit }
        func needsCut(_ e: Entry) -> Bool {
            tooLong(e.label, TextLimit.label) || tooLong(e.address, TextLimit.address)
                || tooLong(e.deviceID, TextLimit.deviceID)
                || tooLong(e.wifi, TextLimit.wifi) || tooLong(e.tag, TextLimit.label)
                || e.inRegions.map {
                    $0.count > TextLimit.regionsPerEntry || $0.contains { tooLong($0, TextLimit.label) }
                }
                    ?? false
        }
        guard entries.contains(where: needsCut) else { return entries }
        return entries.map { e in
            guard needsCut(e) else { return e }
            var cut = e
            cut.label = e.label?.truncated(to: TextLimit.label)
            cut.address = e.address?.truncated(to: TextLimit.address)
            cut.deviceID = e.deviceID?.truncated(to: TextLimit.deviceID)
            cut.wifi = e.wifi?.truncated(to: TextLimit.wifi)
            cut.tag = e.tag?.truncated(to: TextLimit.label)
            cut.inRegions = e.inRegions.map {
                $0.prefix(TextLimit.regionsPerEntry).map { $0.truncated(to: TextLimit.label) }
            }
            return cut
        }
    }

    /// A failed insert of `entries[index]` as the error the user sees.
    static func invalidEntry(_ entries: [Entry], at index: Int, _ error: SQLiteError) -> StoreError {
        let reason = StoreError.entryReason(error)
        return .invalidEntry(index: index, time: entries[index].time.iso8601(), reason: reason)
    }

    /// Runs `body` inside the transaction already open on this connection (an import's), or else in one write
    /// transaction of its own.
    public func writeJoiningTransaction<T>(_ body: () throws -> T) throws -> T {
        try sqlite { database.isInTransaction ? try body() : try write(body) }
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE), rolled back whole if it throws.
    public func write<T>(_ body: () throws -> T) throws -> T {
        return try sqlite {
            try database.transaction(.immediate, body)
        }
    }

    /// Binds row `row` of an `insertEntrySQL` statement (all but the session, ?1).
    private func bindEntry(_ e: Entry, id: StoredEntryID, to s: Statement, row: Int) throws {
        let o = Int32(row * Store.valuesPerRow)
        try s.bind(e.latitude, at: 2 + o)
        try s.bind(e.longitude, at: 3 + o)
        try s.bind(e.altitude, at: 4 + o)
        try s.bind(e.horizontalAccuracy, at: 5 + o)
        try s.bind(e.verticalAccuracy, at: 6 + o)
        try s.bind(e.time.milliseconds, at: 7 + o)
        try s.bind(e.speed, at: 8 + o)
        try s.bind(e.course, at: 9 + o)
        try s.bind(e.address, at: 10 + o)
        try s.bind(e.marked, at: 11 + o)
        try id.bind(to: s, at: 12 + o)
        try s.bind(e.instanceCount, at: 13 + o)
        try s.bind(e.isHeadingChanged, at: 14 + o)
        try s.bind(e.satellites, at: 15 + o)
        try s.bind(e.hdop, at: 16 + o)
        try s.bind(e.vdop, at: 17 + o)
        try s.bind(e.pdop, at: 18 + o)
        try s.bind(e.fixMode?.rawValue, at: 19 + o)
        try s.bind(EntryExtras.json(of: e), at: 20 + o)
    }

    static func readEntry(_ s: Statement) -> Entry {
        var e = Entry(
            // Key, Latitude, Longitude, TimeStamp, Marked, InstanceCount and IsHeadingChanged are NOT NULL.
            key: s.requiredInt64(at: 0), id: Store.entryID(s, at: 12, time: s.requiredInt64(at: 7)),
            latitude: s.requiredDouble(at: 2),
            longitude: s.requiredDouble(at: 3), altitude: s.double(at: 4), horizontalAccuracy: s.double(at: 5),
            verticalAccuracy: s.double(at: 6), time: Timestamp(milliseconds: s.requiredInt64(at: 7)),
            speed: s.double(at: 8), course: s.double(at: 9), address: s.string(at: 10),
            marked: s.requiredInt64(at: 11) == 1, instanceCount: Int(s.requiredInt64(at: 13)),
            isHeadingChanged: s.requiredInt64(at: 14) == 1, satellites: s.int(at: 15), hdop: s.double(at: 16),
            vdop: s.double(at: 17), pdop: s.double(at: 18), fixMode: s.int(at: 19).flatMap(FixMode.init(rawValue:)))
        _ = s.withText(at: 20) { EntryExtras.read($0, into: &e) }
        return e
    }

    /// A list of strings as the JSON array text the Motion and InRegions columns hold.
    static func encodeMotion(_ motion: [String]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: motion, options: [.withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeMotion(_ text: String) -> [String]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]
    }

    /// A missing session in words (the same whether SQLite's foreign key or `bulkWrite` found it).
    static let missingSession = "its session does not exist"

    /// A taken entry id in words (the same whether SQLite's unique index or `firstTakenID` found it).
    static let duplicateID =
        "an entry with the same EntryID already exists (UNIQUE constraint failed: Entries.EntryID)"

    /// A broken CHECK constraint in words (the same whether SQLite or `brokenRule` found it).
    static func explain(rule: String) -> String { "it breaks the rule \(rule) (CHECK constraint failed: \(rule))" }

    // MARK: - Updating

    /// Writes a reverse-geocoded address into an entry (GPS Log's asynchronous address update).
    /// - Returns: false when no entry has this key.
    @discardableResult
    public func updateAddress(entryKey: Int64, address: String?) throws -> Bool {
        return try sqlite {
            try database.run(
                "UPDATE EntryRows SET Address = ? WHERE Key = ?",
                [SQLiteValue(address?.truncated(to: TextLimit.address)), .integer(entryKey)])
            return database.changes == 1
        }
    }

    /// Sets an entry's instance count (the sampler's "same place again"), and with it the fixes its session's track
    /// stands for.
    public func setInstanceCount(entryKey: Int64, to count: Int) throws {
        try sqlite {
            try writeJoiningTransaction {
                try database.run(
                    """
                    UPDATE SessionSummaries SET Fixes = Fixes + ?1 - (SELECT InstanceCount FROM EntryRows WHERE Key = ?2)
                    WHERE Session = (SELECT SessionKey FROM EntryRows
                                     WHERE Key = ?2 AND Marked = 0 AND IsHeadingChanged = 0)
                    """, [.integer(Int64(count)), .integer(entryKey)])
                try database.run(
                    "UPDATE EntryRows SET InstanceCount = ? WHERE Key = ?",
                    [.integer(Int64(count)), .integer(entryKey)])
            }
        }
    }
}
