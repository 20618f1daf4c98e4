// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// EntryRows behind the Entries view (migration 20): ids in their three stored forms read back as written, found by
/// id, a track point in at most 110 bytes, writes through the view, and the copy of an older database.
@Suite(.ownThreads)
struct CompactRowsTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// Ids of every stored form: made from the entry's own time (10 bytes), a UUID from another time or of another
    /// version (16 bytes), and text that is not a lower-case UUID (kept as it is).
    func entriesWithEveryKindOfID() -> [Entry] {
        var rng = SplitMix64(seed: 42)
        var entries = makeEntries(count: 6, start: start)
        entries[1].id = "0f0f0f0f-1111-4222-8333-444455556666"  // version 4
        entries[2].id = entries[0].id  // made from another entry's time
        entries[0].id = Identifier.uuidV7(time: start.adding(milliseconds: -5), using: &rng)
        entries[3].id = "0F0F0F0F-1111-4222-8333-444455556666"  // upper case
        entries[4].id = "not-a-uuid-but-thirty-six-characters"
        return entries
    }

    @Test func idsOfEveryFormReadBackAsWrittenAndAreFoundByID() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Ids", start: start)
            let entries = entriesWithEveryKindOfID()
            try store.append(entries, to: s.id)
            #expect(try store.entries(of: s.id).all().map(\.id) == entries.map(\.id))
            let forms = try store.database.makeStatement(
                "SELECT typeof(EntryID) || ' ' || length(EntryID) FROM EntryRows ORDER BY Key")
            var stored: [String] = []
            while try forms.step() { stored.append(forms.string(at: 0) ?? "") }
            #expect(stored == ["blob 16", "blob 16", "blob 16", "text 36", "text 36", "blob 10"])
            // The view shows the text, for sqlite3 and every tool.
            let view = try store.database.makeStatement("SELECT EntryID, Session FROM Entries ORDER BY Key")
            var shown: [String] = []
            while try view.step() {
                shown.append(view.string(at: 0) ?? "")
                #expect(view.string(at: 1) == s.id)
            }
            #expect(shown == entries.map(\.id))
            for e in entries { #expect(try store.entry(id: e.id)?.time == e.time, "\(e.id)") }
            var rng = SplitMix64(seed: 7)
            #expect(try store.entry(id: Identifier.uuidV7(time: start, using: &rng)) == nil)
        }
    }

    /// An id stored after its time is found among the sessions that have entries that day, also when several do.
    @Test func idsAreFoundAcrossSessionsOfTheSameDay() throws {
        try withTemporaryStore { store, _ in
            var all: [Entry] = []
            for n in 0..<4 {
                let s = try store.createSession(name: "Device \(n)", start: start)
                let entries = makeEntries(count: 50, start: start, seed: UInt64(n + 1))
                try store.append(entries, to: s.id)
                all += entries
            }
            for e in all { #expect(try store.entry(id: e.id)?.id == e.id) }
            let days = try store.database.scalar("SELECT COUNT(*) FROM EntryDays")?.int64
            #expect(days == 4, "one day for each session")
            // A taken id is refused in another batch when it is stored whole (here: made from another time).
            var copy = makeEntries(count: 3, start: start.adding(milliseconds: 999_000), seed: 9)
            copy[1].id = all[7].id
            let error = #expect(throws: StoreError.self) {
                try store.append(copy, to: try store.resolveSession("Device 0").id)
            }
            #expect(error?.errorDescription?.contains("entry 2 of the batch") == true)
            #expect(error?.errorDescription?.contains("same EntryID") == true)
        }
    }

    /// A batch's ids asked at once (an import keeping its file's ids) get the answer an index probe per id gives:
    /// ids of every stored form, in several sessions, over more than a chunk of ids and hours apart, among free ones.
    @Test func takenIDsOfABatchAreThoseFoundOneByOne() throws {
        try withTemporaryStore { store, _ in
            var stored: [Entry] = []
            for n in 0..<3 {
                let s = try store.createSession(name: "Device \(n)", start: start)
                // 150 entries a second apart, and 150 more a day later: more than one chunk, more than one span.
                var entries = makeEntries(
                    count: 150, start: start.adding(milliseconds: 3_600_000 + Int64(n) * 7_200_000), seed: UInt64(n + 1)
                )
                entries += makeEntries(count: 150, start: start.adding(milliseconds: 86_400_000), seed: UInt64(n + 11))
                try store.append(entries, to: s.id)
                stored += entries
            }
            let everyForm = try store.createSession(name: "Every form", start: start)
            let forms = entriesWithEveryKindOfID()
            try store.append(forms, to: everyForm.id)
            stored += forms
            var rng = SplitMix64(seed: 99)
            let free =
                (0..<250).map { i in
                    Identifier.uuidV7(time: start.adding(milliseconds: Int64(i) * 1000), using: &rng)
                } + ["FREE-TEXT-ID-OF-THIRTY-SIX-CHARACTER", "ffffffff-1111-4222-8333-444455556666"]
            let asked = (stored.map(\.id) + free).shuffled(using: &rng)
            let oneByOne = Set(try asked.filter { try store.entryKey(id: $0) != nil })
            #expect(oneByOne == Set(stored.map(\.id)))
            #expect(try store.takenEntryIDs(asked) == oneByOne)
            #expect(try store.takenEntryIDs(free).isEmpty)
            #expect(try store.takenEntryIDs([]).isEmpty)
        }
    }

    /// The generated GPX track's points (position, altitude, time, an id made from the time), imported: at most 110
    /// bytes each on disk, indexes included (issue 23: 252 before).
    @Test func aTrackPointTakesAtMost110Bytes() throws {
        try withTemporaryStore { store, path in
            let count = 100_000
            try store.bulkWrite {
                let s = try store.createSession(name: "Track", start: start)
                var rng = SplitMix64(seed: 1)
                for batch in stride(from: 0, to: count, by: 2_000) {
                    let entries = (batch..<batch + 2_000).map { i in
                        let time = start.adding(milliseconds: Int64(i) * 1000)
                        let a = Double(i) / 5000
                        return Entry(
                            id: Identifier.uuidV7(time: time, using: &rng),
                            latitude: 52.6 + 0.2 * sin(a) + 0.0003 * sin(Double(i) / 7),
                            longitude: 5.3 + 0.3 * cos(a * 0.7) + 0.0003 * cos(Double(i) / 11),
                            altitude: 10 + 5 * sin(Double(i) / 300), time: time)
                    }
                    try store.appendInTransaction(entries, to: s.id)
                }
            }
            try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let used = try #require(
                try store.database.scalar(
                    "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count, pragma_freelist_count, pragma_page_size"
                )?.int64)
            let perEntry = Double(used) / Double(count)
            #expect(perEntry <= 110, "\(perEntry) bytes per entry (\(path))")
        }
    }
}
