// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The session commands, run through the real binary against a real database file.
@Suite(.ownThreads)
struct SessionCommandsTests {
    @Test func anEmptyDatabaseSaysSoAndIsCreatedPrivate() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/nested/folder/gpslog.sqlite"
            let r = try runGPSLog(["sessions"], database: db)
            #expect(r.status == 0)
            #expect(r.stdout.hasPrefix("No sessions in \(db) yet."))
            #expect((try FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? Int) == 0o600)
            #expect(
                (try FileManager.default.attributesOfItem(atPath: dir + "/nested/folder")[.posixPermissions] as? Int)
                    == 0o700)
            let json = try runGPSLog(["sessions", "--json"], database: db)
            #expect(json.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]")
        }
    }

    @Test func importListShowRenameDelete() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let imported = try runGPSLog(["import", "--sample"], database: db)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.hasPrefix("Imported 'IJsselmeer sail (sample)'"))

            let list = try runGPSLog(["sessions"], database: db)
            let lines = list.stdout.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines[0].hasPrefix("NAME") && lines[0].contains("DISTANCE"))
            #expect(lines[1].hasPrefix("IJsselmeer sail (sample)") && lines[1].contains("2018-08-20 09:47:36Z"))

            let json = try runGPSLog(["sessions", "--json"], database: db)
            let sessions = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [[String: Any]]
            let id = sessions[0]["id"] as! String
            #expect(sessions[0]["recording"] as? Bool == false)
            #expect((sessions[0]["trackPoints"] as? Int ?? 0) > 100)

            let shown = try runGPSLog(["show", String(id.prefix(6))], database: db)
            #expect(shown.status == 0)
            for field in ["Session:", "Duration:", "Distance:", "Bounding box:", "Max speed:", "Average speed:"] {
                #expect(shown.stdout.contains(field), "show lacks \(field)")
            }
            let showJSON =
                try JSONSerialization.jsonObject(
                    with: Data(try runGPSLog(["show", id, "--json"], database: db).stdout.utf8)) as! [String: Any]
            #expect(showJSON["durationSeconds"] as? Double == 147)

            let renamed = try runGPSLog(["rename", id, "Sail <&> 🚤"], database: db)
            #expect(renamed.status == 0)
            #expect(try runGPSLog(["show", "Sail <&> 🚤"], database: db).stdout.contains("Session:       Sail <&> 🚤"))

            let refused = try runGPSLog(["delete", id], database: db)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("stdin is not a terminal; pass --yes"))
            let deleted = try runGPSLog(["delete", id, "--yes"], database: db)
            #expect(deleted.status == 0 && deleted.stdout.hasPrefix("Deleted 'Sail <&> 🚤'"))
            #expect(try runGPSLog(["sessions"], database: db).stdout.hasPrefix("No sessions"))
        }
    }

    @Test func unknownAndAmbiguousSessionsAreOneClearErrorWithCandidates() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try runGPSLog(["import", "--sample", "--name", "Twice"], database: db)
            _ = try runGPSLog(["import", "--sample", "--name", "Twice"], database: db)
            let unknown = try runGPSLog(["show", "Nowhere"], database: db)
            #expect(unknown.status == 1)
            #expect(unknown.stdout.isEmpty)
            #expect(
                unknown.stderr.hasPrefix(
                    "Error: no session is named 'Nowhere' or has an id starting with 'Nowhere'. Sessions:\n"))
            #expect(unknown.stderr.components(separatedBy: "Twice").count == 3)
            let ambiguous = try runGPSLog(["show", "Twice"], database: db)
            #expect(ambiguous.status == 1)
            #expect(ambiguous.stderr.hasPrefix("Error: 'Twice' matches 2 sessions; name one by its id"))
            #expect(!ambiguous.stderr.contains("Fatal error") && !ambiguous.stderr.contains("Stack"))
        }
    }

    @Test func anUnusableDatabasePathIsOneLineNamingIt() throws {
        let r = try runGPSLog(["sessions", "--db", "/etc/hostname/gpslog.sqlite"])
        #expect(r.status == 1)
        #expect(
            r.stderr
                == "Error: cannot open the database /etc/hostname/gpslog.sqlite: Not a directory. Check the path and its permissions, or choose another file with --db or GPSLOG_DB.\n"
        )
        try withTemporaryDirectory { dir in
            let notes = dir + "/notes.txt"
            try "not a database, just notes".write(toFile: notes, atomically: true, encoding: .utf8)
            let garbage = try runGPSLog(["show", "x"], database: notes)
            #expect(garbage.status == 1)
            #expect(garbage.stderr.hasPrefix("Error: cannot open the database \(notes): file is not a database."))
            #expect(try String(contentsOfFile: notes, encoding: .utf8) == "not a database, just notes")
        }
    }
}
