// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// Runs `body` in one write transaction made for appending many entries (a file import): every entry appended
    /// inside is checked in Swift against the Entries rules (`brokenRule`), and SQLite's own evaluation of them is
    /// off for the transaction (`PRAGMA ignore_check_constraints`, and foreign keys: the session is checked once
    /// per batch instead of once per row). Same rules, same errors, named the same way; a broken one still rolls
    /// back the whole import.
    ///
    /// Why: SQLite evaluates ~20 CHECK expressions and a foreign-key probe per row in its bytecode engine, about a
    /// third of the cost of storing a GPX track point (profiled with `perf`; a 1M-point import 4.6 s -> 3.5 s).
    /// The Swift checks are a few comparisons. `BulkWriteTests` proves that both agree, rule by rule, and that every
    /// CHECK in the schema has its Swift twin.
    ///
    /// When the write is expected to be large (`expectedBytes`, the input's size: unknown counts as large) and no
    /// other connection has the database open, it also goes through a rollback journal instead of the WAL (see
    /// `enterRollbackJournal`).
    ///
    /// Only the import's own calls (`createSession`, `appendInTransaction`, `finishSession`) may run inside.
    public func bulkWrite<T>(expectedBytes: Int? = nil, _ body: () throws -> T) throws -> T {
        return try sqlite {
            guard !checksInSwift else { return try body() }  // nested: the outer one has set it up
            // Restore first, so a pragma that fails half-way leaves nothing switched off (each restore is harmless
            // when its pragma never ran).
            defer {
                checksInSwift = false
                try? database.execute("PRAGMA ignore_check_constraints = OFF")
                try? database.setForeignKeys(enabled: true)
                try? database.execute("PRAGMA temp_store = DEFAULT")
            }
            let rollbackJournal = (expectedBytes ?? .max) >= Store.rollbackJournalMinimumBytes && enterRollbackJournal()
            defer { if rollbackJournal { leaveRollbackJournal() } }
            try database.execute("PRAGMA ignore_check_constraints = ON")
            // Before the transaction opens: foreign-key enforcement should not change inside one (the PRAGMA would be
            // a no-op there).
            try database.setForeignKeys(enabled: false)
            // Each multi-row INSERT keeps a statement journal (to undo just that statement if a row breaks a
            // constraint); in a temporary file that is ~2 system calls per page per statement (700k for a 1M-point
            // import, strace). In memory it is a few pages per statement. Not for the whole connection: big sorts
            // (ORDER BY on millions of rows) must still spill to disk so memory stays flat.
            try database.execute("PRAGMA temp_store = MEMORY")
            checksInSwift = true
            return try write(body)
        }
    }

    /// The input size from which a bulk write takes a rollback journal. Below it the WAL's double write costs less
    /// than the switch and the synced commit (measured: 200 files of 150 points, 0.95 s in the WAL, 1.55 s with
    /// the journal; a 1 MB GPX the same either way; from 5 MB the journal wins, 2.9 s -> 2.1 s at 98 MB).
    public static let rollbackJournalMinimumBytes = 4 << 20

    /// Switches the database from the WAL to a rollback journal for a bulk write, if no other connection has it
    /// open (a recorder, a receiver, a reader): SQLite refuses the switch at once then, and the write stays in the
    /// WAL. Returns whether it switched.
    ///
    /// Why: in WAL mode every page is written twice (to the WAL, then by the checkpoint to the database), and the
    /// checkpoint of a big import runs after its commit, serially. A rollback journal keeps only the old content of
    /// pages that existed before the transaction; the pages an import appends are written once (a 1M-point
    /// import: 61k page writes instead of 245k, 2.9 s -> 2.1 s). ogr2ogr, the peer, writes this way too.
    ///
    /// The cost: while it writes, other processes cannot read the database (in the WAL they could); one that
    /// opens it waits for the commit, up to its busy timeout (15 s), and then says it is busy (`StoreError.busy`).
    /// Synchronous FULL, set before the switch, while the rollback journal is on, so a power cut cannot corrupt
    /// the database; a killed import is rolled back from the journal when the database is next opened, and the
    /// next `Store` to open it switches it back to the WAL.
    func enterRollbackJournal() -> Bool {
        do {
            try database.execute("PRAGMA synchronous = FULL")
            try database.setBusyTimeout(milliseconds: 0)
            defer { try? database.setBusyTimeout(milliseconds: busyTimeout) }
            if try database.scalar("PRAGMA journal_mode = DELETE")?.string?.lowercased() == "delete" { return true }
        } catch {
            // Busy: another connection has the database open (or a transaction is open here).
        }
        try? database.execute("PRAGMA synchronous = NORMAL")
        return false
    }

    /// Back to the WAL and synchronous NORMAL, as `init` set them. Should another process be waiting to open
    /// the database and win the lock first, its `Store.init` switches to the WAL itself.
    func leaveRollbackJournal() {
        _ = try? database.scalar("PRAGMA journal_mode = WAL")
        try? database.execute("PRAGMA synchronous = NORMAL")
    }

    /// The names of the Entries table's CHECK constraints, in the order SQLite evaluates them (the order of the
    /// stored CREATE TABLE: columns first, each `ALTER TABLE ADD COLUMN` appended to the columns, table constraints
    /// last), which is the order `brokenRule` checks them in.
    public static let entryRuleNames = [
        "latitude_in_range", "longitude_in_range", "horizontal_accuracy_not_negative", "vertical_accuracy_not_negative",
        "speed_not_negative", "course_in_range", "marked_is_flag", "entry_id_is_uuid", "instance_count_positive",
        "heading_in_range", "heading_changed_is_flag", "label_only_on_marks", "satellites_not_negative",
        "hdop_not_negative", "vdop_not_negative", "pdop_not_negative", "fix_mode_known", "speed_accuracy_not_negative",
        "course_accuracy_not_negative", "motion_is_json_array", "battery_state_known", "battery_level_fraction",
        "starts_segment_is_flag", "monitoring_known", "report_trigger_known", "in_regions_is_json_array",
        "poi_is_flag", "poi_only_on_marks", "heading_change_has_heading",
    ]

    /// The first Entries CHECK constraint (by its schema name, in SQLite's order) the entry would break, or nil.
    /// Mirrors the schema exactly, including SQL's view of a NaN: it is stored as NULL, and a CHECK on NULL passes.
    /// `idIsUUID`: the caller has read the id as a UUID already (`StoredEntryID`), so it has 36 characters.
    public static func brokenRule(_ e: borrowing Entry, idIsUUID: Bool = false) -> String? {
        @inline(__always) func absent(_ v: Double?) -> Bool { v == nil || v!.isNaN }
        @inline(__always) func notNegative(_ v: Double?) -> Bool { absent(v) || v! >= 0 }
        @inline(__always) func angle(_ v: Double?) -> Bool { absent(v) || (v! >= 0 && v! < 360) }
        if !Geo.latitudeRange.contains(e.latitude) && !e.latitude.isNaN { return "latitude_in_range" }
        if !Geo.longitudeRange.contains(e.longitude) && !e.longitude.isNaN { return "longitude_in_range" }
        if !notNegative(e.horizontalAccuracy) { return "horizontal_accuracy_not_negative" }
        if !notNegative(e.verticalAccuracy) { return "vertical_accuracy_not_negative" }
        if !notNegative(e.speed) { return "speed_not_negative" }
        if !angle(e.course) { return "course_in_range" }
        // marked_is_flag, heading_changed_is_flag and starts_segment_is_flag hold for a Bool, monitoring_known and
        // report_trigger_known for their enums; the motion and region lists are always written as arrays.
        if !idIsUUID && !hasSQLLength36(e.id) { return "entry_id_is_uuid" }
        if e.instanceCount < 1 { return "instance_count_positive" }
        if !angle(e.heading) { return "heading_in_range" }
        if e.label != nil && !e.marked { return "label_only_on_marks" }
        if let s = e.satellites, s < 0 { return "satellites_not_negative" }
        if !notNegative(e.hdop) { return "hdop_not_negative" }
        if !notNegative(e.vdop) { return "vdop_not_negative" }
        if !notNegative(e.pdop) { return "pdop_not_negative" }
        if let f = e.fixMode, f.rawValue != 2 && f.rawValue != 3 { return "fix_mode_known" }
        if !notNegative(e.speedAccuracy) { return "speed_accuracy_not_negative" }
        if !notNegative(e.courseAccuracy) { return "course_accuracy_not_negative" }
        if let b = e.batteryState, !["unknown", "charging", "full", "unplugged"].contains(b.rawValue) {
            return "battery_state_known"
        }
        if !absent(e.batteryLevel) && !(e.batteryLevel! >= 0 && e.batteryLevel! <= 1) {
            return "battery_level_fraction"
        }
        if e.isPOI && !e.marked { return "poi_only_on_marks" }
        if e.isHeadingChanged && (absent(e.heading) || e.headingTime == nil) { return "heading_change_has_heading" }
        return nil
    }

    /// SQL's `length(text) = 36`: length() counts characters (Unicode scalars) up to the first NUL. A 36-byte ASCII
    /// id without NUL, the common case, is answered from the bytes.
    static func hasSQLLength36(_ id: String) -> Bool {
        let bytes = id.utf8
        if bytes.count == 36 && bytes.allSatisfy({ $0 != 0 && $0 < 0x80 }) { return true }
        return id.unicodeScalars.prefix(while: { $0 != "\u{0}" }).count == 36
    }

    /// Inside `bulkWrite`: the first entry whose insert SQLite's switched-off checks would have refused, with the
    /// rule it breaks (nil: its session does not exist, which the foreign key reports on the first row).
    func firstRefusedInSwift(_ rows: Rows, session sessionID: String) throws -> (index: Int, rule: String?)? {
        let entries = rows.entries
        guard !entries.isEmpty else { return nil }
        if try session(id: sessionID) == nil {
            // A row's CHECKs run as it is inserted, the foreign key at the end of the statement: the first entry's
            // own broken rule is what SQLite reports.
            return (0, Store.brokenRule(entries[0]))
        }
        for index in entries.indices {
            if let rule = Store.brokenRule(entries[index], idIsUUID: rows.ids[index].isUUID) { return (index, rule) }
        }
        return nil
    }

    /// Fails the append at `entries[index]` with the error SQLite would have given with all its checks on. The
    /// checks still on (NOT NULL, UNIQUE) speak first where SQLite's order puts them: on any earlier row, and on
    /// this row NOT NULL before a CHECK, and everything before the foreign key, checked at the statement's end.
    func refuse(_ rows: Rows, at index: Int, rule: String?) throws -> Never {
        let entries = rows.entries
        _ = try insertRows(rows, upTo: index)
        do {
            try insertOne(rows, at: index, with: try oneRowInsert())
        } catch let error as SQLiteError where rule == nil || !error.isConstraintViolation || error.isNotNullViolation {
            throw Store.invalidEntry(entries, at: index, error)
        } catch is SQLiteError {
            // A UNIQUE clash: SQLite checks it after the row's CHECKs.
        }
        let reason = rule.map(Store.explain(rule:)) ?? "\(Store.missingSession) (FOREIGN KEY constraint failed)"
        throw StoreError.invalidEntry(index: index, time: entries[index].time.iso8601(), reason: reason)
    }
}
