// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog check` on what the recorder, an import and a manual mark wrote, on figures edited with sqlite3, and on a
/// damaged file.
struct CheckCommandTests {
    @Test func checkFindsTheKeptFiguresRightRepairsEditedOnesAndFailsOnADamagedFile() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorded = try runGPSLog(
                ["record", "--source", "replay:sample?speed=0", "--geocode", "off", "--name", "Recorded"],
                database: db)
            #expect(recorded.status == 0, "\(recorded.stderr)")
            #expect(try runGPSLog(["import", "--sample", "--name", "Imported"], database: db).status == 0)
            let mark = try runGPSLog(
                [
                    "mark", "--session", "Imported", "--lat", "52.9", "--lon", "5.2", "--time",
                    "2018-08-20T08:00:00Z", "Early",
                ], database: db)
            #expect(mark.status == 0, "\(mark.stderr)")

            let clean = try runGPSLog(["check"], database: db)
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(clean.stdout.contains("2 sessions, "))
            #expect(clean.stdout.contains("entries: every kept figure was right."))
            #expect(clean.stdout.hasSuffix("integrity_check: ok\n"))

            // Figures changed behind gpslog's back, with sqlite3.
            let edit = try runTool(
                "/usr/bin/sqlite3",
                [
                    db,
                    "UPDATE SessionSummaries SET EntryCount = 1, LengthNanometres = 5 WHERE Session = (SELECT Key FROM Sessions WHERE Name = 'Recorded')",
                ])
            #expect(edit.status == 0, "\(edit.output)")
            let repaired = try runGPSLog(["check"], database: db)
            #expect(repaired.status == 0)
            #expect(repaired.stdout.hasPrefix("Repaired 'Recorded' ("))
            #expect(repaired.stdout.contains("): EntryCount, LengthNanometres differed.\n"))
            #expect(repaired.stdout.contains("entries: 1 repaired."))
            #expect(try runGPSLog(["check"], database: db).stdout.contains("every kept figure was right"))

            // An index whose rows no longer match its definition: SQLite's integrity check finds it.
            let damage = try runTool(
                "/usr/bin/sqlite3",
                [
                    db,
                    "CREATE INDEX Sessions_Name ON Sessions (Name); PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE INDEX Sessions_Name ON Sessions (ID)' WHERE name = 'Sessions_Name';",
                ])
            #expect(damage.status == 0, "\(damage.output)")
            let damaged = try runGPSLog(["check"], database: db)
            #expect(damaged.status == 1)
            #expect(damaged.stderr.hasPrefix("Error: the database \(db) is damaged (PRAGMA integrity_check):\n"))
            #expect(damaged.stderr.contains("Sessions_Name"))
            #expect(damaged.stderr.contains(".recover"))
        }
    }
}
