// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog check` on what the recorder, an import and a manual mark wrote, on figures edited with sqlite3, and on a
/// damaged file.
@Suite(.ownThreads)
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

            // The history map's kept visits of a session lost with sqlite3: found, and counted again.
            #expect(clean.stdout.contains("History map: 2 sessions and 0 kept tiles compared: all right.\n"))
            let lost = try runTool(
                "/usr/bin/sqlite3",
                [db, "DELETE FROM HistorySpans WHERE Session = (SELECT Key FROM Sessions WHERE Name = 'Imported')"])
            #expect(lost.status == 0, "\(lost.output)")
            let redrawn = try runGPSLog(["check"], database: db)
            #expect(redrawn.stdout.contains("Repaired the history map of 'Imported' ("), "\(redrawn.stdout)")
            #expect(redrawn.stdout.contains("History map: 2 sessions and 0 kept tiles compared: repaired.\n"))
            #expect(try runGPSLog(["check"], database: db).stdout.contains("History map: 1 session and 0 kept"))

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

    /// A page overwritten with garbage stops the count (or the open) with SQLite's bare "malformed": `check` says
    /// what the integrity check found there instead.
    @Test func aGarbledPageIsReportedInTheIntegrityChecksOwnWords() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Imported"], database: db).status == 0)
            func pages(of table: String, _ type: String) throws -> [Int] {
                try runTool(
                    "/usr/bin/sqlite3",
                    [db, "SELECT pageno FROM dbstat WHERE name = '\(table)' AND pagetype = '\(type)' ORDER BY pageno"]
                ).output.split(separator: "\n").compactMap { Int($0) }
            }
            let entries = try pages(of: "EntryRows", "leaf")
            let schema = try pages(of: "sqlite_schema", "leaf")
            try #require(!entries.isEmpty && !schema.isEmpty, "dbstat: \(entries) \(schema)")
            let copy = dir + "/schema-damaged.sqlite"
            try FileManager.default.copyItem(atPath: db, toPath: copy)
            /// Overwrites page `page` (numbered from 1) of `file` with garbage.
            func garble(_ file: String, page: Int) throws {
                let handle = try #require(FileHandle(forWritingAtPath: file))
                try handle.seek(toOffset: UInt64((page - 1) * 4096))
                try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
                try handle.close()
            }
            try garble(db, page: entries[entries.count / 2])
            let damaged = try runGPSLog(["check"], database: db)
            #expect(damaged.status == 1, "\(damaged.stdout)")
            #expect(damaged.stderr.contains("is damaged (PRAGMA integrity_check):\n"), "\(damaged.stderr)")
            #expect(
                damaged.stderr.lowercased().contains("page \(entries[entries.count / 2])"),
                "the check's own finding names the page: \(damaged.stderr)")
            #expect(damaged.stderr.contains(".recover"))

            // The schema damaged: the check cannot start, and says so instead of "check the path".
            try garble(copy, page: schema[schema.count / 2])
            let unreadable = try runGPSLog(["check"], database: copy)
            #expect(unreadable.status == 1)
            #expect(
                unreadable.stderr.contains("is damaged") && unreadable.stderr.contains("schema"), "\(unreadable.stderr)"
            )
            #expect(unreadable.stderr.contains(".recover"))
        }
    }
}
