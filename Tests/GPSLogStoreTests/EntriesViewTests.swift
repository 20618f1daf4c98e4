// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The Entries view as sqlite3 users meet it: the columns and rows of GPS Log's table, writes that reach EntryRows
/// (the session's kept figures then counted again), and a version 8 database copied into it whole.
@Suite(.ownThreads)
struct EntriesViewTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// Every row `columns` of Entries, each value with its type, in key order.
    func rows(_ db: Database, _ columns: String) throws -> [[SQLiteValue]] {
        let s = try db.makeStatement("SELECT \(columns) FROM Entries ORDER BY Key")
        let count = Int32(columns.split(separator: ",").count)
        var rows: [[SQLiteValue]] = []
        while try s.step() { rows.append((0..<count).map { s.value(at: $0) }) }
        return rows
    }

    @Test func writesThroughTheViewReachTheRowsAndTheFigures() throws {
        try withTemporaryStore { store, path in
            let s = try store.createSession(name: "Hand-edited", start: start)
            let keys = try store.append(makeEntries(count: 10), to: s.id)
            let summary = { try store.summary(of: s) }
            // What a user's sqlite3 does: a connection of its own, foreign keys off (and a time written as a REAL).
            let user = try Database(path: path)
            defer { user.close() }
            try user.execute(
                """
                INSERT INTO Entries (Session, Latitude, Longitude, TimeStamp, EntryID)
                VALUES ('\(s.id)', 52.5, 5.5, \(start.milliseconds + 60_000).0, '0f0f0f0f-1111-4222-8333-444455556666');
                """)
            #expect(try summary().entryCount == 11 && summary().maxLatitude == 52.5)
            #expect(try store.entry(id: "0f0f0f0f-1111-4222-8333-444455556666")?.longitude == 5.5)

            let id = try #require(try store.entries(of: s.id).next()?.id)
            try user.execute("UPDATE Entries SET Latitude = 53, TimeStamp = TimeStamp + 1 WHERE Key = \(keys[0])")
            #expect(try summary().maxLatitude == 53)
            #expect(
                try user.scalar("SELECT EntryID FROM Entries WHERE Key = ?", [.integer(keys[0])])?.string == id,
                "an id made from the time keeps its text when the time changes")
            try user.execute("UPDATE Entries SET Address = 'Somewhere' WHERE Key = \(keys[1])")
            #expect(try store.keptSummary(sessionKey: s.key) != nil, "an address changes no figure")

            try user.execute("DELETE FROM Entries WHERE Key = \(keys[2])")
            #expect(try summary().entryCount == 10)
            #expect(try store.checkSummaries().repairs.isEmpty)

            #expect(throws: SQLiteError.self) {
                try user.execute(
                    """
                    INSERT INTO Entries (Session, Latitude, Longitude, TimeStamp, EntryID)
                    VALUES ('00000000-0000-4000-8000-00000000dead', 1, 1, 1, '00000000-0000-4000-8000-000000000001')
                    """)
            }
            // A session deleted with foreign keys off takes its rows along (a trigger).
            try user.execute("DELETE FROM Sessions WHERE ID = '\(s.id)'")
            #expect(try store.database.scalar("SELECT COUNT(*) FROM EntryRows")?.int64 == 0)
            #expect(try store.database.scalar("SELECT COUNT(*) FROM EntryDays")?.int64 == 0)
        }
    }

    /// A version 8 database (the Entries table with text session ids and text entry ids, and its UNIQUE index),
    /// with ids of every form and entries whose session row is missing, copied into compact rows: the view gives
    /// every row back, column for column, and the keys stay (an upload's cursor names them).
    @Test func aVersion8DatabaseIsCopiedWhole() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/v8.sqlite"
            let columns = """
                Key, Session, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, \
                Course, Address, Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp, Label, \
                Satellites, HDOP, VDOP, PDOP, FixMode, SpeedAccuracy, CourseAccuracy, Motion, BatteryState, BatteryLevel, \
                DeviceID, Wifi
                """
            let before: [[SQLiteValue]]
            do {
                let db = try Database(path: path)
                defer { db.close() }
                try Migrations.migrate(db, upTo: 8)
                try db.execute(
                    """
                    INSERT INTO Sessions (ID, StartTime, EndTime, Name) VALUES
                        ('00000000-0000-4000-8000-000000000001', 1000, 900000, 'Kept'),
                        ('00000000-0000-4000-8000-000000000002', 1000, NULL, 'Open');
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299)
                    INSERT INTO Entries (Key, Session, Latitude, Longitude, Altitude, TimeStamp, Speed, Address, Marked,
                        EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp, Label, Satellites, Motion,
                        BatteryState, DeviceID)
                    SELECT i * 3 + 7, '00000000-0000-4000-8000-00000000000' || (1 + i % 2), 52 + i * 1e-4, 5 - i * 1e-4,
                        CASE WHEN i % 5 = 0 THEN NULL ELSE i * 0.5 END, 1000 + i * 997, i % 9, 'Street ' || i, i % 50 = 0,
                        CASE i % 4
                            WHEN 0 THEN printf('%08x-%04x-7abc-8def-%012x', (1000 + i * 997) >> 16, (1000 + i * 997) & 65535, i)
                            WHEN 1 THEN printf('%08x-1111-4222-8333-%012x', i, i)
                            WHEN 2 THEN upper(printf('%08x-1111-4222-8333-%012x', i, i))
                            ELSE printf('%08x-0000-7000-8000-%012x', i, i) END,
                        1 + i % 3, CASE WHEN i % 7 = 0 THEN 90.5 END, i % 7 = 0, CASE WHEN i % 7 = 0 THEN 5 END,
                        CASE WHEN i % 50 = 0 THEN 'Mark ' || i END, i % 12, '["walking"]', 'charging', 'phone'
                    FROM n;
                    -- Written by hand with foreign keys off: entries of a session that has no row.
                    INSERT INTO Entries (Session, Latitude, Longitude, TimeStamp, EntryID)
                    VALUES ('B7C5E1D2-8F4A-4E2B-9C3D-1A2B3C4D5E6F', 1, 2, 3, 'ffffffff-0000-4000-8000-000000000001'),
                           ('lost', 1, 2, 4, 'ffffffff-0000-4000-8000-000000000002');
                    """)
                before = try rows(db, columns)
            }
            var reports: [UpgradeProgress] = []
            let store = try Store(path: path) { reports.append($0) }
            defer { store.close() }
            #expect(try store.database.userVersion() == Migrations.latestVersion)
            let after = try rows(store.database, columns)
            #expect(after.count == before.count)
            for (a, b) in zip(after, before) where a.count == b.count {
                // The recovered session of the last row has a new id; everything else is as it was.
                if b[1] == .text("lost") { continue }
                #expect(a == b)
            }
            #expect(reports.contains { $0.step == "Compacting entries" && $0.done == before.count })
            let recovered = try store.resolveSession("Recovered entries B7C5E1D2")
            #expect(try store.summary(of: recovered).entryCount == 1)
            #expect(try store.checkSummaries().repairs.isEmpty)
            #expect(try store.integrityProblems().isEmpty)
            let forms = try store.database.scalar(
                "SELECT group_concat(DISTINCT typeof(EntryID) || length(EntryID)) FROM EntryRows")?.string
            #expect(Set(forms?.split(separator: ",") ?? []) == ["blob10", "blob16", "text36"])
        }
    }
}
