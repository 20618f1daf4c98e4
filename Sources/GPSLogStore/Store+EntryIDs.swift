// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Entry ids in their stored forms (`StoredEntryID`), found by id, and kept unique.
extension Store {
    /// Reads the EntryID column of the current row (its stored form) as the id's text; `time` is the row's TimeStamp.
    static func entryID(_ s: Statement, at column: Int32, time: Int64) -> String {
        s.withBlob(at: column) { StoredEntryID.text(blob: $0, time: time) } ?? s.string(at: column) ?? ""
    }

    /// The key of the entry with this id, wherever it is stored: an id stored whole or as text through its unique
    /// index; an id stored after its time in the sessions that have entries on its time's day (EntryDays), one index
    /// probe each.
    func entryKey(id: String) throws -> Int64? {
        // At a time no UUID starts with (its 48 bits are never negative): a UUID in its whole form, or text.
        let stored = StoredEntryID(id, time: -1)
        let whole = try database.cachedStatement(
            "SELECT Key FROM EntryRows WHERE EntryID = ? AND length(EntryID) <> 10")
        defer { whole.reset() }
        // A UUID written through the Entries view is kept as its text.
        for form in [stored.value, .text(id)] {
            try whole.bind(form, at: 1)
            if try whole.step() { return whole.requiredInt64(at: 0) }
            whole.reset()
            if case .text = stored { break }
        }
        guard case .whole(let bytes) = stored else { return nil }
        let afterTime = try database.cachedStatement(
            """
            SELECT Key FROM EntryRows
            WHERE SessionKey IN (SELECT SessionKey FROM EntryDays WHERE Day = ?1 / 86400000) AND TimeStamp = ?1
                AND EntryID = ?2
            """)
        defer { afterTime.reset() }
        try afterTime.bind(bytes.time, at: 1)
        try StoredEntryID.afterTime(bytes).bind(to: afterTime, at: 2)
        return try afterTime.step() ? afterTime.requiredInt64(at: 0) : nil
    }

    /// The first entry whose id another entry of the batch (before it) has, or an entry in the database stored whole.
    ///
    /// Ids stored after their time are not looked up in the database: gpslog makes them from 74 random bits, and an
    /// import looks up every id it keeps from a file before it keeps it (`entry(id:)`). Within a batch, two such ids
    /// are alike only at the same time, so a batch in strictly increasing time with no id stored whole (a track) is
    /// not searched at all.
    func firstTakenID(_ entries: [Entry], stored: [StoredEntryID]) throws -> Int? {
        var increasing = true
        var previous = Int64.min
        var wholes: [Int] = []
        for (i, e) in entries.enumerated() {
            if e.time.milliseconds <= previous { increasing = false }
            previous = e.time.milliseconds
            if case .afterTime = stored[i] { continue }
            wholes.append(i)
        }
        var first: Int?
        if !increasing || !wholes.isEmpty {
            var seen = Set<String>()
            for (i, e) in entries.enumerated() where !seen.insert(e.id).inserted {
                first = i
                break
            }
        }
        for i in wholes where i < (first ?? .max) {
            if try entryKey(id: entries[i].id) != nil { return i }
        }
        return first
    }

    /// Notes the days of the rows just written in EntryDays (usually one per batch, and there already).
    func keepDays(of entries: [Entry], sessionKey: Int64) throws {
        var days: Set<Int64> = []
        var lastDay = Int64.min
        for i in entries.indices {
            // SQL's integer division (towards zero), as the lookup computes it.
            let day = entries[i].time.milliseconds / 86_400_000
            if day != lastDay { days.insert(day) }
            lastDay = day
        }
        let s = try database.cachedStatement("INSERT OR IGNORE INTO EntryDays (Day, SessionKey) VALUES (?, ?)")
        for day in days {
            try s.bind([.integer(day), .integer(sessionKey)])
            try s.step()
            s.reset()
        }
    }
}
