// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The web view and the receiver of one `serve`, with other gpslog processes on the same database: what the
/// receiver acknowledged is what every other process reads. The view once opened and closed the database's files
/// itself to tell whether it changed, which dropped serve's SQLite locks, so the next process to close the database
/// deleted the WAL under serve: later posts were answered 200 and seen by no other process.
@Suite(.ownThreads) struct ViewKeepsTheWALTests {
    static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    /// An Overland batch of one location of `device` at `second` past 2024-05-01T10:00Z.
    static func overland(device: String, second: Int) -> String {
        let time = String(format: "2024-05-01T10:%02d:%02dZ", second / 60, second % 60)
        return """
            {"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5.1,52.\(100 + second)]},\
            "properties":{"timestamp":"\(time)","device_id":"\(device)","horizontal_accuracy":5}}]}
            """
    }

    static func curl(_ arguments: [String]) throws -> String {
        try runTool("/usr/bin/curl", ["-s", "--max-time", "60"] + arguments).output
    }

    /// Entries of the session received from `device`, as a separate gpslog process counts them.
    static func received(_ device: String, db: String, folder: String) async throws -> Int? {
        let listed = try await runGPSLogAsync(["sessions", "--json"], database: db, folder: folder)
        let sessions = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        return sessions.first { ($0["name"] as? String)?.contains(device) == true }?["entries"] as? Int
    }

    @Test func theViewsPagesNeverLetAnotherProcessDeleteTheWALUnderServe() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/seams.sqlite"
            // Each background process writes its output in a folder of its own.
            for folder in ["serve", "cli"] {
                try FileManager.default.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: false)
            }
            let imported = try await runGPSLogAsync(
                ["import", Self.hike, "--name", "Hike"], database: db, folder: dir + "/cli")
            #expect(imported.status == 0, "\(imported.stderr)")
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0", "--tiles", "none"], database: db, folder: dir + "/serve")
            _ = await waitUntilAsync(timeout: 60) { serve.stdout.contains("Listening on http://") }
            let line = try #require(serve.stdout.split(separator: "\n").first { $0.hasPrefix("Listening on ") })
            var base = String(line.dropFirst("Listening on ".count).prefix { !$0.isWhitespace })
            if base.hasSuffix("/") { base.removeLast() }

            func post(_ second: Int) throws -> String {
                try Self.curl([
                    "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json",
                    "--data-binary", Self.overland(device: "seams-phone", second: second), base + "/overland",
                ])
            }
            #expect(try post(1) == "200")
            let listed = try Self.curl([base + "/api/sessions"])
            let list = try #require(
                try? JSONSerialization.jsonObject(with: Data(listed.utf8)), "/api/sessions: '\(listed)' \(serve.stderr)"
            )
            let hike = try #require((list as? [[String: Any]])?.first { $0["name"] as? String == "Hike" })
            let id = try #require(hike["id"] as? String)
            // Every route the view answers from its cache, twice (the second from the cache), each followed by
            // another process that opens and closes the database.
            for route in ["track.geojson", "entries", "track.geojson", "entries"] {
                let answer = try Self.curl([
                    "-o", "/dev/null", "-w", "%{http_code}", "\(base)/api/sessions/\(id)/\(route)",
                ])
                #expect(answer == "200", "\(route)")
                let sessions = try await runGPSLogAsync(["sessions"], database: db, folder: dir + "/cli")
                #expect(sessions.status == 0, "\(sessions.stderr)")
                #expect(FileManager.default.fileExists(atPath: db + "-wal"), "the WAL is gone after \(route)")
            }
            for second in 2...5 {
                #expect(try post(second) == "200")
                #expect(try await Self.received("seams-phone", db: db, folder: dir + "/cli") == second)
            }
            // SQLite's own shell, a process that is not gpslog, sees the same rows, and the file is sound.
            let count = try runTool(
                "/usr/bin/sqlite3",
                [db, "SELECT COUNT(*) FROM Entries WHERE Longitude = 5.1 AND Latitude BETWEEN 52.1 AND 52.11"])
            #expect(count.output.trimmingCharacters(in: .whitespacesAndNewlines) == "5")
            let check = try await runGPSLogAsync(["check"], database: db, folder: dir + "/cli")
            #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
            _ = serve
        }
    }

    /// `import` of the database itself (by any name) would read it outside SQLite, with the same effect as the view's
    /// old stamp: refused before anything is opened.
    @Test func importOfTheDatabaseItselfIsRefused() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/own.sqlite"
            #expect(try runGPSLog(["import", "--sample"], database: db).status == 0)
            try FileManager.default.createSymbolicLink(atPath: dir + "/link.sqlite", withDestinationPath: db)
            for file in [db, dir + "/link.sqlite"] {
                for extra in [[], ["--dry-run"]] {
                    let run = try runGPSLog(["import", file] + extra, database: db)
                    #expect(run.status == 1 && run.stderr.contains("gpslog's own database"), "\(run.stderr)")
                }
            }
            let listed = try runGPSLog(["sessions", "--json"], database: db)
            #expect(listed.stdout.components(separatedBy: "\"id\"").count == 2, "one session, as before")
        }
    }
}
