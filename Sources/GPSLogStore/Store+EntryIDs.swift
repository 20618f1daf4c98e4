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

    /// The ids of `ids` that an entry in the database has: `entryKey(id:)`'s three index probes, asked for a chunk
    /// of ids at a time. An import that keeps its file's ids asks this per batch, on the thread that parses, so a
    /// probe per id made it wait (three statement lookups, each hashing its SQL, per row of a CSV file).
    func takenIDs(_ ids: [String]) throws -> Set<String> {
        var taken = Set<String>()
        var timed: [(time: Int64, id: String)] = []
        let chunk = 100
        // Ids stored whole or as text, through the unique index: both forms of each id, padded with NULLs.
        let probe = try database.cachedStatement(
            "SELECT EntryID, TimeStamp FROM EntryRows WHERE length(EntryID) <> 10 AND EntryID IN ("
                + Array(repeating: "?", count: 2 * chunk).joined(separator: ",") + ")")
        defer { probe.reset() }
        var start = 0
        while start < ids.count {
            let part = ids[start..<min(start + chunk, ids.count)]
            var index: Int32 = 1
            for id in part {
                let stored = StoredEntryID(id, time: -1)
                if case .whole(let bytes) = stored { timed.append((bytes.time, id)) }
                try stored.bind(to: probe, at: index)
                try probe.bind(id, at: index + 1)
                index += 2
            }
            while index <= Int32(2 * chunk) {
                try probe.bindNull(at: index)
                index += 1
            }
            let wanted = Set(part)
            while try probe.step() {
                let id = Store.entryID(probe, at: 0, time: probe.requiredInt64(at: 1))
                if wanted.contains(id) { taken.insert(id) }
            }
            probe.reset()
            start += chunk
        }
        // Ids stored after their time: the rows of a quarter of an hour at a time (a track's batch is one or two),
        // in the sessions with entries on those days; an id far from the others is one such probe of its own.
        timed.sort { $0.time < $1.time }
        let span: Int64 = 15 * 60_000
        let rows = try database.cachedStatement(
            """
            SELECT EntryID, TimeStamp FROM EntryRows
            WHERE SessionKey IN (SELECT SessionKey FROM EntryDays WHERE Day BETWEEN ?1 / 86400000 AND ?2 / 86400000)
                AND TimeStamp BETWEEN ?1 AND ?2 AND length(EntryID) = 10
            """)
        defer { rows.reset() }
        var first = 0
        while first < timed.count {
            var last = first
            while last + 1 < timed.count && timed[last + 1].time - timed[first].time <= span { last += 1 }
            try rows.bind([.integer(timed[first].time), .integer(timed[last].time)])
            let wanted = Set(timed[first...last].lazy.map(\.id))
            while try rows.step() {
                let id = Store.entryID(rows, at: 0, time: rows.requiredInt64(at: 1))
                if wanted.contains(id) { taken.insert(id) }
            }
            rows.reset()
            first = last + 1
        }
        return taken
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
