// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// Power cuts and crashes (issue 18, part 5): the recorder killed with SIGKILL at 50 random moments of a 10 Hz
/// replay, with the geocoder and live sending running beside it, each time on the same database. It lives with the
/// geocoding tests because the loopback Nominatim is theirs; the Overland receiver is the test support's.
///
/// After every kill: `PRAGMA integrity_check` is ok, every entry a reader saw committed just before the kill is
/// still there, and a mark that `gpslog mark` confirmed is there too; once the next recorder has started, no
/// session but its own is open (the start closed the one the kill left). After the campaign an ordinary recording
/// runs to its end. The moments come from a seeded generator whose seed is printed (`GPSLOG_KILL_SEED` replays a
/// campaign).
@Suite(.ownThreads)
struct KillCampaignTests {
    static let kills = 50

    @Test func fiftyKillsLoseNoCommittedEntryAndCorruptNothing() async throws {
        let seed =
            ProcessInfo.processInfo.environment["GPSLOG_KILL_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
        print("kill campaign: seed \(seed) (GPSLOG_KILL_SEED=\(seed) replays it)")
        var rng = SplitMix64(seed: seed)
        let geocoder = FakeGeocoderServer(flavor: .nominatim, minimumSpacing: 0)
        try await geocoder.start()
        let overland = FlakyOverlandServer(failureRate: 0)
        try await overland.start()
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let log = dir + "/ten-hertz.nmea"
            try Self.tenHertzLog(seconds: 120).write(toFile: log, atomically: true, encoding: .utf8)
            let options = [
                "--source", "replay:\(log)?speed=1", "--interval", "0", "--geocode", "nominatim:" + geocoder.url,
                "--geocode-rate", "20/s", "--send", overland.url, "--send-interval", "1s",
            ]
            var marksKept = 0
            var recoveries = 0
            var committedBeforeKills: Int64 = 0
            for kill in 1...Self.kills {
                let folder = dir + "/run-\(kill)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                // Commits every second, so that kills land before, during and after many of them.
                let recorder = try BackgroundGPSLog(
                    ["record", "--name", "Kill \(kill)", "--commit-every", "1s"] + options, database: db, folder: folder
                )
                // A fifth of the kills come during start-up (recovery, opening the source); the rest while recording.
                let early = Double.random(in: 0..<1, using: &rng) < 0.2
                let delay =
                    early ? Double.random(in: 0.02...0.3, using: &rng) : Double.random(in: 0.3...3.0, using: &rng)
                let started = Date()
                var mark: String?
                if !early && Double.random(in: 0..<1, using: &rng) < 0.25,
                    waitUntil(timeout: 10, { recorder.stderr.contains("recording session") })
                {
                    let marked = try runGPSLog(["mark", "--json", "Kill \(kill)"], database: db)
                    if marked.status == 0 {
                        mark = try JSONDecoder().decode(MarkInfo.self, from: Data(marked.stdout.utf8)).entryID
                    }
                }
                let remaining = delay - Date().timeIntervalSince(started)
                if remaining > 0 { usleep(UInt32(remaining * 1_000_000)) }
                // Until the campaign has seen a geocoder request and an Overland batch, a recorder dies only after
                // it made both: on a loaded machine the random delays may all end before the first of either.
                if geocoder.log.isEmpty || overland.log.isEmpty {
                    _ = waitUntil(timeout: 60) { !geocoder.log.isEmpty && !overland.log.isEmpty }
                }
                // What a reader sees now is committed; the kill follows at once.
                let seen = try Self.committed(db)
                let recovered = recorder.stderr.contains("listening for mark/status/stop")
                let open = try Self.openSessions(db)
                Foundation.kill(recorder.process.processIdentifier, SIGKILL)
                #expect(recorder.wait(timeout: 10) != nil, "kill \(kill): the recorder did not die")

                let context = "kill \(kill) after \(String(format: "%.2f", delay)) s (seed \(seed))"
                // Killed before it created the file (the first run only): there is nothing to check yet.
                guard FileManager.default.fileExists(atPath: db) else { continue }
                #expect(try Self.integrity(db) == "ok", "\(context)")
                let kept = try Self.count(db, keysUpTo: seen.maxKey)
                #expect(kept == seen.count, "\(context): \(seen.count) entries were committed, \(kept) remain")
                if let mark {
                    #expect(try Self.hasEntry(db, id: mark), "\(context): the confirmed mark is gone")
                    marksKept += 1
                }
                // Once a recorder is past its start-up, the session an earlier kill left open has been closed.
                if recovered { #expect(open.count <= 1, "\(context): sessions left open \(open)") }
                if recorder.stderr.contains("left open by a recorder that stopped abruptly") { recoveries += 1 }
                committedBeforeKills = max(committedBeforeKills, seen.count)
            }

            // The campaign killed recorders that had committed, recovered, looked up addresses and sent points.
            let (requests, batches) = (geocoder.log.count, overland.log.count)
            #expect(committedBeforeKills > 0 && recoveries > 0 && requests > 0 && batches > 0)
            print(
                "kill campaign: \(committedBeforeKills) entries committed by the last kill, \(recoveries) sessions "
                    + "closed by the next start, \(requests) geocoder requests, \(batches) Overland batches")

            // The next recording starts, closes what the last kill left, and runs to its end.
            let last = try runGPSLog(
                [
                    "record", "--name", "After", "--source", "replay:\(log)?speed=0", "--interval", "0", "--send",
                    overland.url, "--geocode", "nominatim:" + geocoder.url, "--geocode-rate", "20/s",
                ], database: db)
            #expect(last.status == 0, "\(last.stderr)")
            #expect(last.stdout.hasPrefix("Recorded 'After'"), "\(last.stdout)")
            #expect(try Self.integrity(db) == "ok")
            #expect(try Self.openSessions(db).isEmpty)
            #expect(try Self.count(db, keysUpTo: Int64.max) > 1000)
            #expect(!overland.received.isEmpty)
            print("kill campaign: \(Self.kills) kills, \(marksKept) confirmed marks kept, seed \(seed)")
        }
        await overland.stop()
        await geocoder.stop()
    }

    // MARK: - Reading the database as another process would

    /// A read-only connection that waits, as gpslog's do, while a starting recorder replays the WAL a kill left.
    static func reader(_ db: String) throws -> Database {
        let d = try Database(path: db, mode: .readOnly)
        try d.setBusyTimeout(milliseconds: 15_000)
        return d
    }

    /// Reads with `body` before the kill; `empty` while the starting recorder has made the file a WAL database but
    /// not yet its `-shm` index, which a read-only connection cannot create (SQLITE_CANTOPEN): nothing is committed.
    static func readWhileRecording<T>(_ db: String, empty: T, _ body: (Database) throws -> T) throws -> T {
        guard FileManager.default.fileExists(atPath: db) else { return empty }
        do {
            let d = try reader(db)
            defer { d.close() }
            return try body(d)
        } catch let error as SQLiteError where error.code == 14 {
            return empty
        }
    }

    /// The entries committed now: how many, and the largest key among them.
    static func committed(_ db: String) throws -> (count: Int64, maxKey: Int64) {
        try readWhileRecording(db, empty: (0, 0)) { d in
            guard try d.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'Entries'")?.int64 == 1 else {
                return (0, 0)
            }
            return (
                try d.scalar("SELECT COUNT(*) FROM Entries")?.int64 ?? 0,
                try d.scalar("SELECT IFNULL(MAX(Key), 0) FROM Entries")?.int64 ?? 0
            )
        }
    }

    static func count(_ db: String, keysUpTo key: Int64) throws -> Int64 {
        let d = try reader(db)
        defer { d.close() }
        return try d.scalar("SELECT COUNT(*) FROM Entries WHERE Key <= ?", [.integer(key)])?.int64 ?? 0
    }

    static func hasEntry(_ db: String, id: String) throws -> Bool {
        let d = try reader(db)
        defer { d.close() }
        return try d.scalar("SELECT COUNT(*) FROM Entries WHERE EntryID = ?", [.text(id)])?.int64 == 1
    }

    static func openSessions(_ db: String) throws -> [String] {
        try readWhileRecording(db, empty: []) { d in
            guard try d.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'Sessions'")?.int64 == 1 else {
                return []
            }
            let s = try d.makeStatement("SELECT Name FROM Sessions WHERE EndTime IS NULL")
            var names: [String] = []
            while try s.step() { names.append(s.string(at: 0) ?? "") }
            return names
        }
    }

    /// `PRAGMA integrity_check`, read through the WAL as any later process reads it.
    static func integrity(_ db: String) throws -> String? {
        let d = try reader(db)
        defer { d.close() }
        return try d.scalar("PRAGMA integrity_check")?.string
    }

    /// A 10 Hz NMEA log (RMC and GGA every 100 ms), moving north-east at about 10 m/s near Lelystad.
    static func tenHertzLog(seconds: Int) -> String {
        var text = ""
        for i in 0..<(seconds * 10) {
            let t = Double(i) / 10
            let lat = 52.5 + t * 0.00009
            let lon = 5.4 + t * 0.00009
            let hms = String(
                format: "%02d%02d%05.2f", 8 + Int(t) / 3600, Int(t) / 60 % 60, t.truncatingRemainder(dividingBy: 60))
            let la = String(format: "%02d%07.4f", Int(lat), (lat - Double(Int(lat))) * 60)
            let lo = String(format: "%03d%07.4f", Int(lon), (lon - Double(Int(lon))) * 60)
            text += nmeaSentence("GPRMC,\(hms),A,\(la),N,\(lo),E,19.4,45.0,010526,,,A") + "\r\n"
            text += nmeaSentence("GPGGA,\(hms),\(la),N,\(lo),E,1,09,0.9,3.0,M,46.9,M,,") + "\r\n"
        }
        return text
    }
}
