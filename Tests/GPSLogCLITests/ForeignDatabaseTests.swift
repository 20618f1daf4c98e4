// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// A SQLite file that is not gpslog's, given by mistake to `--db`, is refused and left byte for byte as it was: no
/// gpslog tables, no schema version, no switch to WAL.
@Suite(.ownThreads) struct ForeignDatabaseTests {
    static func sqlite3(_ db: String, _ sql: String) throws -> String {
        let run = try runTool("/usr/bin/sqlite3", [db, sql])
        #expect(run.status == 0, "sqlite3 \(sql): \(run.output)")
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [
        ("notes", "CREATE TABLE notes(x); INSERT INTO notes VALUES ('keep me');", "another program"),
        (
            "gpslog-app",
            "CREATE TABLE Sessions(ID TEXT, StartTime TEXT, EndTime TEXT, Name TEXT);"
                + " CREATE TABLE Entries(Session TEXT, Latitude TEXT, Longitude TEXT);",
            "gpslog import"
        ),
        ("view-only", "CREATE VIEW v AS SELECT 1 AS one;", "another program"),
    ])
    func aDatabaseOfAnotherProgramIsRefusedAndLeftUnchanged(name: String, schema: String, advice: String) throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/\(name).sqlite"
            _ = try Self.sqlite3(db, schema)
            let before = try Data(contentsOf: URL(fileURLWithPath: db))
            for command in [
                ["sessions"], ["sessions", "--json"], ["show", "x"], ["check"], ["export", "x", "--format", "gpx"],
            ] {
                let run = try runGPSLog(command, database: db)
                #expect(run.status == 1, "\(command): \(run.stdout) \(run.stderr)")
                #expect(run.stderr.contains("not gpslog's") && run.stderr.contains(advice), "\(run.stderr)")
                #expect(run.stderr.contains("left unchanged"))
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "the file was written")
            #expect(try Self.sqlite3(db, "PRAGMA journal_mode") == "delete")
            #expect(try Self.sqlite3(db, "PRAGMA user_version") == "0")
            #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
        }
    }

    @Test func anEmptyFileAndGPSLogsOwnStillOpen() throws {
        try withTemporaryDirectory { dir in
            let empty = dir + "/empty.sqlite"
            #expect(FileManager.default.createFile(atPath: empty, contents: nil))
            #expect(try runGPSLog(["sessions"], database: empty).status == 0)
            #expect(try Self.sqlite3(empty, "PRAGMA journal_mode") == "wal")
            // Opened again: it is gpslog's now.
            let again = try runGPSLog(["sessions", "--json"], database: empty)
            #expect(again.status == 0, "\(again.stderr)")
            let sessions = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [Any]
            #expect(sessions?.isEmpty == true, "\(again.stdout)")
        }
    }
}
