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
    /// The Swift checks are a few comparisons. `StoreTests` proves that both agree, rule by rule, and that every
    /// CHECK in the schema has its Swift twin.
    ///
    /// Only the import's own calls (`createSession`, `appendInTransaction`, `finishSession`) may run inside.
    public func bulkWrite<T>(_ body: () throws -> T) throws -> T {
        guard !checksInSwift else { return try body() }  // nested: the outer one has set it up
        try database.execute("PRAGMA ignore_check_constraints = ON")
        try database.setForeignKeys(enabled: false)  // outside the transaction: a no-op inside one
        // Each multi-row INSERT keeps a statement journal (to undo just that statement if a row breaks a
        // constraint); in a temporary file that is ~2 system calls per page per statement (700k for a 1M-point
        // import, strace). In memory it is a few pages per statement. Not for the whole connection: big sorts
        // (ORDER BY on millions of rows) must still spill to disk so memory stays flat.
        try database.execute("PRAGMA temp_store = MEMORY")
        checksInSwift = true
        defer {
            checksInSwift = false
            try? database.execute("PRAGMA ignore_check_constraints = OFF")
            try? database.setForeignKeys(enabled: true)
            try? database.execute("PRAGMA temp_store = DEFAULT")
        }
        return try write(body)
    }

    /// The names of the Entries table's CHECK constraints, all of which `brokenRule` checks.
    public static let entryRuleNames = [
        "latitude_in_range", "longitude_in_range", "horizontal_accuracy_not_negative", "vertical_accuracy_not_negative",
        "speed_not_negative", "course_in_range", "marked_is_flag", "entry_id_is_uuid", "instance_count_positive",
        "heading_in_range", "heading_changed_is_flag", "heading_change_has_heading", "label_only_on_marks",
        "satellites_not_negative", "hdop_not_negative", "vdop_not_negative", "pdop_not_negative", "fix_mode_known",
        "speed_accuracy_not_negative", "course_accuracy_not_negative", "motion_is_json_array", "battery_state_known",
        "battery_level_fraction",
    ]

    /// The first Entries CHECK constraint (by its schema name) the entry would break, or nil. Mirrors the schema
    /// exactly, including SQL's view of a NaN: it is stored as NULL, and a CHECK on NULL passes.
    public static func brokenRule(_ e: Entry) -> String? {
        @inline(__always) func absent(_ v: Double?) -> Bool { v == nil || v!.isNaN }
        @inline(__always) func notNegative(_ v: Double?) -> Bool { absent(v) || v! >= 0 }
        @inline(__always) func angle(_ v: Double?) -> Bool { absent(v) || (v! >= 0 && v! < 360) }
        if !(e.latitude >= -90 && e.latitude <= 90) && !e.latitude.isNaN { return "latitude_in_range" }
        if !(e.longitude >= -180 && e.longitude <= 180) && !e.longitude.isNaN { return "longitude_in_range" }
        if !notNegative(e.horizontalAccuracy) { return "horizontal_accuracy_not_negative" }
        if !notNegative(e.verticalAccuracy) { return "vertical_accuracy_not_negative" }
        if !notNegative(e.speed) { return "speed_not_negative" }
        if !angle(e.course) { return "course_in_range" }
        // marked_is_flag and heading_changed_is_flag hold for a Bool; the motion list is always written as an array.
        // SQL's length() counts characters (Unicode scalars); a 36-byte ASCII id is the common case.
        let bytes = e.id.utf8
        if !(bytes.count == 36 && bytes.allSatisfy { $0 < 0x80 }) && e.id.unicodeScalars.count != 36 { return "entry_id_is_uuid" }
        if e.instanceCount < 1 { return "instance_count_positive" }
        if !angle(e.heading) { return "heading_in_range" }
        if e.isHeadingChanged && (absent(e.heading) || e.headingTime == nil) { return "heading_change_has_heading" }
        if e.label != nil && !e.marked { return "label_only_on_marks" }
        if let s = e.satellites, s < 0 { return "satellites_not_negative" }
        if !notNegative(e.hdop) { return "hdop_not_negative" }
        if !notNegative(e.vdop) { return "vdop_not_negative" }
        if !notNegative(e.pdop) { return "pdop_not_negative" }
        if let f = e.fixMode, f.rawValue != 2 && f.rawValue != 3 { return "fix_mode_known" }
        if !notNegative(e.speedAccuracy) { return "speed_accuracy_not_negative" }
        if !notNegative(e.courseAccuracy) { return "course_accuracy_not_negative" }
        if let b = e.batteryState, !["unknown", "charging", "full", "unplugged"].contains(b.rawValue) { return "battery_state_known" }
        if !absent(e.batteryLevel) && !(e.batteryLevel! >= 0 && e.batteryLevel! <= 1) { return "battery_level_fraction" }
        return nil
    }

    /// Inside `bulkWrite`: what SQLite's checks would have refused in this batch, as the same error.
    func checkInSwift(_ entries: [Entry], session sessionID: String) throws {
        guard try session(id: sessionID) != nil else {
            throw StoreError.invalidEntry(index: 0, time: entries.first?.time.iso8601() ?? "", reason: "its session does not exist (FOREIGN KEY constraint failed)")
        }
        for (index, e) in entries.enumerated() {
            if let rule = Store.brokenRule(e) {
                throw StoreError.invalidEntry(index: index, time: e.time.iso8601(), reason: Store.explain(rule: rule))
            }
        }
    }
}
