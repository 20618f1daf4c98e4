// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `record --monitoring` (OwnTracks' modes) through the real binary, replaying real tracks: a 10-hour hike written
/// by a Garmin handheld (with stops) and a receiver standing in Amsterdam for 20 minutes.
@Suite(.ownThreads)
struct MonitoringTests {
    static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"
    static let standing = TestPaths.packageRoot + "/Tests/Fixtures/tracks/signalk-gps.log"

    /// Records `source` with `arguments` into a new database in `dir`; returns its only session's entries.
    static func record(_ source: String, _ arguments: [String], in dir: String) throws -> [Entry] {
        let db = dir + "/\(UUID().uuidString).sqlite"
        let r = try runGPSLog(
            ["record", "--source", "replay:\(source)?speed=0", "--geocode", "off", "--name", "M"] + arguments,
            database: db)
        try #require(r.status == 0, "\(r.stderr)")
        return try entries(db)
    }

    static func entries(_ db: String) throws -> [Entry] {
        let store = try Store(path: db)
        defer { store.close() }
        let sessions = try store.sessions()
        try #require(sessions.count == 1)
        var entries: [Entry] = []
        try store.entries(of: sessions[0].id).forEach { entries.append($0) }
        return entries
    }

    static func distance(_ a: Entry, _ b: Entry) -> Double {
        Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
    }

    static func seconds(_ a: Entry, _ b: Entry) -> Double { Double(b.time.milliseconds - a.time.milliseconds) / 1000 }

    @Test func moveModeWritesAnEntryEvery100MetresOr300Seconds() throws {
        try withTemporaryDirectory { dir in
            let entries = try Self.record(Self.hike, ["--monitoring", "move"], in: dir)
            #expect(entries.count > 100, "an 18 km hike makes well over 100 entries at 100 m")
            #expect(entries.allSatisfy { $0.monitoring == .move && !$0.isHeadingChanged })
            #expect(entries.first?.trigger == nil)
            for (a, b) in zip(entries, entries.dropFirst()) {
                let d = Self.distance(a, b)
                let t = Self.seconds(a, b)
                // Never both short; made for the time alone exactly when the distance was short.
                #expect(d >= 100 || t >= 300, "\(a.time.iso8601()) -> \(b.time.iso8601()): \(d) m, \(t) s")
                #expect(
                    (b.trigger == .timer) == (d < 100),
                    "\(b.time.iso8601()): \(d) m, trigger \(String(describing: b.trigger))")
            }
            #expect(entries.contains { $0.trigger == .timer }, "the hike's stops make timer entries")

            // Android's rule: both must hold.
            let both = try Self.record(Self.hike, ["--monitoring", "move", "--locator-rule", "both"], in: dir)
            for (a, b) in zip(both, both.dropFirst()) {
                #expect(Self.distance(a, b) >= 100 && Self.seconds(a, b) >= 300)
            }
            #expect(both.count < entries.count)
            #expect(both.allSatisfy { $0.trigger == nil })
        }
    }

    @Test func significantModeWrites500MetresAndFiveMinutesApartAndPingsWhileStill() throws {
        try withTemporaryDirectory { dir in
            let entries = try Self.record(Self.hike, ["--monitoring", "significant"], in: dir)
            #expect(entries.count > 10)
            for (a, b) in zip(entries, entries.dropFirst()) {
                let d = Self.distance(a, b)
                let t = Self.seconds(a, b)
                if b.trigger == .ping {
                    #expect(t >= 900, "a ping after \(t) s")
                } else {
                    #expect(d >= 500 && t >= 300, "\(b.time.iso8601()): \(d) m, \(t) s")
                }
            }
            #expect(entries.allSatisfy { $0.monitoring == .significant })

            // Standing still for 20 minutes: the first fix, then a ping every 5 minutes of fix time, nothing else.
            let still = try Self.record(
                Self.standing, ["--monitoring", "significant", "--ping-interval", "5m"], in: dir)
            #expect(still.map(\.trigger) == [nil, .ping, .ping, .ping, .ping])
            #expect(zip(still, still.dropFirst()).allSatisfy { Self.seconds($0, $1) == 300 })
            let quiet = try Self.record(
                Self.standing, ["--monitoring", "significant", "--ping-interval", "off"], in: dir)
            #expect(quiet.count == 1)
        }
    }

    @Test func manualAndQuietWriteNothingOfTheirOwnAndMixingGPSLogsFiltersIsRefused() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/manual.sqlite"
            for mode in ["manual", "quiet", "0"] {
                let r = try runGPSLog(
                    [
                        "record", "--source", "replay:\(Self.standing)?speed=0", "--geocode", "off", "--monitoring",
                        mode,
                    ],
                    database: db)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(r.stdout.contains("No entry was recorded"), "\(r.stdout)")
            }
            let mixed = try runGPSLog(
                ["record", "--source", "replay:sample", "--monitoring", "move", "--min-distance", "50"], database: db)
            #expect(mixed.status != 0)
            #expect(mixed.stderr.contains("--locator-displacement"))
            let unknown = try runGPSLog(["record", "--monitoring", "sometimes"], database: db)
            #expect(unknown.stderr.contains("--monitoring must be quiet, manual, significant or move"))
        }
    }

    /// A mark in manual mode, then `gpslog monitoring move` while the hike replays: the entries before the switch
    /// are the mark alone; after it, move mode's. The OwnTracks export carries `m` and `t`, and reads back the same.
    @Test func theModeChangesWhileRecordingAndOwnTracksExportsSayWhich() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--source", "replay:\(Self.hike)?speed=1500", "--geocode", "off", "--name", "Hike",
                    "--monitoring", "manual",
                ], database: db, folder: dir)
            let started = waitForStatus(db, timeout: 30) { $0.fixesReceived > 50 }
            #expect(started?.monitoring == "manual", "\(recorder.stderr)")
            let mark = try runGPSLog(["mark", "Bench"], database: db)
            #expect(mark.status == 0, "\(mark.stderr)")
            let switched = try runGPSLog(["monitoring", "move"], database: db)
            #expect(switched.stdout == "move\n", "\(switched.stderr)")
            #expect(try runGPSLog(["monitoring"], database: db).stdout == "move\n")
            let wrong = try runGPSLog(["monitoring", "often"], database: db)
            #expect(wrong.status != 0 && wrong.stderr.contains("is not a monitoring mode"))
            #expect(recorder.wait(timeout: 60) == 0, "\(recorder.stderr)")
            #expect(recorder.stderr.contains("monitoring: manual -> move (gpslog monitoring)"))

            let entries = try Self.entries(db)
            let markIndex = try #require(entries.firstIndex { $0.marked })
            #expect(entries[markIndex].trigger == .user && entries[markIndex].monitoring == .manual)
            #expect(entries[..<markIndex].isEmpty, "manual mode wrote entries before the mark")
            let moved = entries.filter { !$0.marked }
            #expect(moved.count > 20)
            #expect(moved.allSatisfy { $0.monitoring == .move })

            let path = dir + "/hike.jsonl"
            let export = try runGPSLog(["export", "Hike", "--format", "owntracks", "-o", path], database: db)
            #expect(export.status == 0, "\(export.stderr)")
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            let messages = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            #expect(messages.count == entries.count)
            for (message, entry) in zip(messages, entries) {
                #expect(message["t"] as? String == entry.trigger?.rawValue)
                #expect(message["m"] as? Int == (entry.monitoring == .move ? 2 : nil))
            }
            let copy = dir + "/copy.sqlite"
            let imported = try runGPSLog(["import", path, "--name", "Hike"], database: copy)
            #expect(imported.status == 0, "\(imported.stderr)")
            let back = try Self.entries(copy)
            #expect(back.map(\.trigger) == entries.map(\.trigger))
            #expect(back.map { $0.monitoring == .move } == entries.map { $0.monitoring == .move })
        }
    }
}
