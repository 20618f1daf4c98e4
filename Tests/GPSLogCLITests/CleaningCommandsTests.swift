// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// `delete` with a range, an area, a region or outliers, `split`, `merge`, `prune` and `check --vacuum`, run as a
/// user runs them, on the bundled real recording (a sail on the IJsselmeer, 157 entries).
@Suite(.ownThreads)
struct CleaningCommandsTests {
    /// Keys and positions of the track, in track order.
    static func track(_ db: String) throws -> [(key: Int64, latitude: Double, longitude: Double)] {
        let d = try Database(path: db, mode: .readOnly)
        defer { d.close() }
        let s = try d.makeStatement("SELECT Key, Latitude, Longitude FROM EntryRows ORDER BY TimeStamp, Key")
        var rows: [(Int64, Double, Double)] = []
        while try s.step() { rows.append((s.requiredInt64(at: 0), s.requiredDouble(at: 1), s.requiredDouble(at: 2))) }
        return rows
    }

    static func sql(_ db: String, _ text: String) throws {
        let d = try Database(path: db)
        defer { d.close() }
        try d.execute(text)
    }

    @Test func outliersPutIntoARealRecordingAreFoundAndOnlyThey() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Sail"], database: db).status == 0)
            let before = try Self.track(db)
            // A receiver's spike (6 km off for one fix) and a "no position" fix at 0°, 0°, among real track points.
            let (spike, null) = (before[40].key, before[90].key)
            try Self.sql(
                db,
                """
                UPDATE EntryRows SET Latitude = Latitude + 0.05 WHERE Key = \(spike);
                UPDATE EntryRows SET Latitude = 0, Longitude = 0 WHERE Key = \(null);
                """)
            let dry = try runGPSLog(["delete", "Sail", "--outliers", "--dry-run"], database: db)
            #expect(dry.status == 0 && dry.stdout.hasPrefix("Would delete 2 entries"), "\(dry.stdout)\(dry.stderr)")
            #expect(dry.stdout.contains("1 at 0°, 0°, 1 in jumps faster than 1000 km/h"), "\(dry.stdout)")
            #expect(try Self.track(db).count == before.count)
            let refused = try runGPSLog(["delete", "Sail", "--outliers"], database: db)
            #expect(refused.status != 0 && refused.stderr.contains("pass --yes"))
            let done = try runGPSLog(["delete", "Sail", "--outliers", "--yes"], database: db)
            #expect(done.status == 0 && done.stdout.hasPrefix("Deleted 2 entries"), "\(done.stdout)\(done.stderr)")
            #expect(try Self.track(db).map(\.key) == before.map(\.key).filter { $0 != spike && $0 != null })
            // The kept figures were counted again: check finds nothing to repair.
            let check = try runGPSLog(["check"], database: db)
            #expect(check.status == 0 && check.stdout.contains("every kept figure was right"), "\(check.stdout)")
        }
    }

    @Test func aRegionAndAnAreaAroundTheStart() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Sail"], database: db).status == 0)
            let first = try Self.track(db)[0]
            let added = try runGPSLog(
                [
                    "region", "add", "Harbour", "--lat", "\(first.latitude)", "--lon", "\(first.longitude)", "--radius",
                    "60",
                ],
                database: db)
            #expect(added.status == 0, "\(added.stderr)")
            let near = try Self.track(db).filter {
                Geo.distance(lat1: first.latitude, lon1: first.longitude, lat2: $0.latitude, lon2: $0.longitude) <= 60
            }
            #expect(near.count > 5 && near.count < 157)
            let done = try runGPSLog(["delete", "Sail", "--inside-region", "Harbour", "--yes"], database: db)
            #expect(done.status == 0 && done.stdout.hasPrefix("Deleted \(near.count) entries"), "\(done.stdout)")
            #expect(Set(try Self.track(db).map(\.key)).isDisjoint(with: near.map(\.key)))
            // An area (west,south,east,north) holding everything that is left, for the first minute only.
            let box = "5.2,52.8,5.4,52.9"
            let minute = try runGPSLog(
                ["delete", "Sail", "--inside", box, "--to", "2018-08-20T09:48:36Z", "--dry-run"], database: db)
            #expect(minute.status == 0 && minute.stdout.hasPrefix("Would delete"), "\(minute.stdout)\(minute.stderr)")
            let unknown = try runGPSLog(["delete", "Sail", "--inside-region", "Nowhere", "--yes"], database: db)
            #expect(unknown.status != 0 && unknown.stderr.contains("no region is named 'Nowhere'"))
            let bad = try runGPSLog(["delete", "Sail", "--inside", "5.2,52.9,5.4,52.8"], database: db)
            #expect(bad.status == 64, "south above north is refused: \(bad.stderr)")
        }
    }

    @Test func splitMergePruneAndVacuum() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Sail"], database: db).status == 0)
            let split = try runGPSLog(
                ["split", "Sail", "--at", "2018-08-20T09:49:00Z", "--name", "Sail, later"], database: db)
            #expect(split.status == 0 && split.stdout.contains("'Sail, later'"), "\(split.stdout)\(split.stderr)")
            let listed = try runGPSLog(["sessions"], database: db).stdout
            #expect(listed.contains("Sail, later") && listed.contains("2018-08-20 09:48:59Z"), "\(listed)")
            let outside = try runGPSLog(["split", "Sail", "--at", "2019-01-01T00:00:00Z"], database: db)
            #expect(outside.status != 0 && outside.stderr.contains("no entry at or after"), "\(outside.stderr)")
            let merged = try runGPSLog(["merge", "Sail", "Sail, later"], database: db)
            #expect(merged.status == 0 && merged.stdout.contains("157 entries"), "\(merged.stdout)\(merged.stderr)")
            // The file was made before incremental vacuum was the default: check --vacuum turns it on.
            try Self.sql(db, "PRAGMA auto_vacuum = NONE; VACUUM;")
            let vacuumed = try runGPSLog(["check", "--vacuum"], database: db)
            #expect(
                vacuumed.status == 0 && vacuumed.stdout.contains("Vacuumed:"), "\(vacuumed.stdout)\(vacuumed.stderr)")
            let d = try Database(path: db, mode: .readOnly)
            #expect(try d.scalar("PRAGMA auto_vacuum")?.int64 == 2)
            d.close()
            let pruned = try runGPSLog(["prune", "--older-than", "2y", "--yes"], database: db)
            #expect(
                pruned.status == 0 && pruned.stdout.hasPrefix("Deleted 1 session whole (157 entries"),
                "\(pruned.stdout)")
            #expect(try runGPSLog(["sessions"], database: db).stdout.hasPrefix("No sessions"))
            #expect(try runGPSLog(["prune", "--older-than", "2 years"], database: db).status == 64)
        }
    }

    @Test func theSessionBeingRecordedIsRefused() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Done"], database: db).status == 0)
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Live", "--source", "replay:sample?speed=1", "--geocode", "off"], database: db,
                folder: dir)
            defer {
                kill(recorder.process.processIdentifier, SIGKILL)
                _ = recorder.wait(timeout: 10)
            }
            #expect(waitUntil(timeout: 20) { recorder.stderr.contains("recording session") }, "\(recorder.stderr)")
            for arguments in [
                ["delete", "Live", "--to", "2030-01-01T00:00:00Z", "--yes"], ["delete", "Live", "--yes"],
                ["split", "Live", "--at", "2018-08-20T09:48:00Z"], ["merge", "Done", "Live"],
            ] {
                let r = try runGPSLog(arguments, database: db)
                #expect(r.status != 0 && r.stderr.contains("'Live' is being recorded"), "\(arguments): \(r.stderr)")
            }
            let prune = try runGPSLog(["prune", "--older-than", "1y", "--dry-run"], database: db)
            #expect(
                prune.stdout.contains("Left alone: 'Live'") && prune.stdout.contains("whole: 'Done'"), "\(prune.stdout)"
            )
            // Other sessions stay open to cleaning while it records.
            #expect(try runGPSLog(["delete", "Done", "--outliers", "--yes"], database: db).status == 0)
        }
    }

    /// `--dry-run` holds for a whole session too, with or without --yes (it asked, then deleted with --yes).
    @Test func aDryRunOfAWholeSessionDeletesNothing() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/dry.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Sail"], database: db).status == 0)
            func entries() throws -> Int? {
                let listed = try runGPSLog(["sessions", "--json"], database: db).stdout
                let sessions = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
                return sessions?.first { $0["name"] as? String == "Sail" }?["entries"] as? Int
            }
            let count = try #require(try entries())
            for extra in [[], ["--yes"]] {
                let dry = try runGPSLog(["delete", "Sail", "--dry-run"] + extra, database: db)
                #expect(dry.status == 0 && dry.stdout.hasPrefix("Would delete 'Sail' ("), "\(dry.stdout)\(dry.stderr)")
                #expect(dry.stdout.contains(" \(count) entries; nothing was deleted."), "\(dry.stdout)")
            }
            #expect(try entries() == count)
        }
    }
}
