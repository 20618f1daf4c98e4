// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// A million-entry session streams through the cursor with flat memory: the peak resident size while reading it
/// all stays within a small bound, far below what the session would take as an array (hundreds of MB).
struct StreamingMemoryTests {
    @Test func aMillionEntrySessionStreamsWithoutMemoryGrowth() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Big", start: Timestamp(milliseconds: 1_700_000_000_000))
            // Fill in SQL: a recursive CTE writes 1M rows in a few seconds even in a debug build.
            try store.write {
                try store.database.run("""
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
                    INSERT INTO Entries (Session, Latitude, Longitude, Altitude, HorizontalAccuracy, TimeStamp, Speed, Course,
                                         EntryID, Satellites, HDOP, FixMode)
                    SELECT ?1, 52 + i * 1e-6, 5 + i * 1e-6, 10, 3, 1700000000000 + i * 1000, 1.5, 45,
                           printf('%08x-%04x-7%03x-8%03x-%012x', 1700000000 + i / 1000, i % 65536, i % 4096, i % 4096, i),
                           9, 0.8, 3
                    FROM n
                    """, [.text(s.id)])
            }
            #expect(try store.summary(of: s).entryCount == 1_000_000)

            ProcessMemory.resetPeak()
            let before = ProcessMemory.current()
            var count = 0
            var lastTime = Int64.min
            var ordered = true
            var latitudeSum = 0.0
            try store.entries(of: s.id).forEach { entry in
                count += 1
                ordered = ordered && entry.time.milliseconds > lastTime
                lastTime = entry.time.milliseconds
                latitudeSum += entry.latitude
            }
            let growth = ProcessMemory.peak() - before
            #expect(count == 1_000_000)
            #expect(ordered)
            #expect(abs(latitudeSum / 1_000_000 - (52 + 499_999.5e-6)) < 1e-6)
            // The whole session as [Entry] would be > 300 MB; streaming must stay within SQLite's cache and noise
            // from tests running alongside.
            #expect(growth < 48 * 1024 * 1024, "peak RSS grew by \(growth / 1024 / 1024) MB while streaming")
        }
    }
}
