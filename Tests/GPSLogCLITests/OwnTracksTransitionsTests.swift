// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// Transitions and waypoints in OwnTracks files, in the OwnTracks Recorder's `.rec` layout (owntracks/recorder,
/// recorder.c: `RECFORMAT "%s\t%-18s\t%s\n"`, the time from the payload's `tst`, then the topic relative to
/// `owntracks/USER/DEVICE`: `*` for the base topic (locations), `event` for transitions, `waypoint` for one region,
/// `lwt` for a last will; doc/STORE.md), imported, listed by `gpslog events`, and written back the same way.
@Suite(.ownThreads)
struct OwnTracksTransitionsTests {
    /// One `.rec` line: the time, the relative topic padded to 18, the JSON.
    static func rec(_ tst: Int, _ type: String, _ json: String) -> String {
        let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(tst)))
        return time + "\t" + type.padding(toLength: 18, withPad: " ", startingAt: 0) + "\t" + json
    }

    static let start = 1_709_283_789

    static func location(_ i: Int) -> String {
        let lat = String(format: "%.4f", 52.2251 + Double(i) * 0.001)
        return #"{"_type":"location","acc":10,"lat":\#(lat),"lon":13.3321,"t":"p","tid":"RO","tst":\#(start + 60 * i)}"#
    }

    static func transition(_ i: Int, _ event: String, _ desc: String, rid: String, wtst: Int) -> String {
        let lat = String(format: "%.4f", 52.2251 + Double(i) * 0.001)
        return #"{"_type":"transition","acc":5,"desc":"\#(desc)","event":"\#(event)","lat":\#(lat),"lon":13.3321,"#
            + #""rid":"\#(rid)","t":"c","tid":"RO","tst":\#(start + 60 * i),"wtst":\#(wtst)}"#
    }

    /// A month of the Recorder's: the Office waypoint, 10 locations, entering and leaving the Office, entering the
    /// Gym (whose waypoint is not in the file), and a last will.
    static let month: String = {
        var lines = [
            rec(
                1_709_280_000, "waypoint",
                #"{"_type":"waypoint","desc":"Office","lat":52.2281,"lon":13.3321,"rad":120,"tst":1709280000,"rid":"a1b2c3d4"}"#
            )
        ]
        for i in 0..<10 {
            if i == 3 {
                lines.append(
                    rec(start + 60 * i, "event", transition(i, "enter", "Office", rid: "a1b2c3d4", wtst: 1_709_280_000))
                )
            }
            if i == 7 {
                lines.append(
                    rec(start + 60 * i, "event", transition(i, "leave", "Office", rid: "a1b2c3d4", wtst: 1_709_280_000))
                )
            }
            if i == 9 {
                lines.append(
                    rec(start + 60 * i, "event", transition(i, "enter", "Gym", rid: "9f8e7d6c", wtst: 1_709_270_000)))
            }
            lines.append(rec(start + 60 * i, "*", location(i)))
        }
        lines.append(rec(start + 700, "lwt", #"{"_type":"lwt","tst":1709280000}"#))
        return lines.joined(separator: "\n") + "\n"
    }()

    /// `gpslog events NAME --json` as objects.
    static func events(_ name: String, db: String) throws -> [[String: Any]] {
        let r = try runGPSLog(["events", name, "--json"], database: db)
        try #require(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aRecFilesTransitionsAreImportedWithTheirWaypointsRegion() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let path = dir + "/2024-03.rec"
            try Self.month.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try runGPSLog(["import", path, "--name", "March"], database: db)
            try #require(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains(": 10 entries"), "\(r.stdout)")
            #expect(r.stderr.contains("imported 3 region transitions"), "\(r.stderr)")
            #expect(r.stderr.contains("1 of them through regions whose waypoint the file does not hold"), "\(r.stderr)")
            #expect(r.stderr.contains("skipped 1 lwt messages"), "\(r.stderr)")

            let events = try Self.events("March", db: db)
            #expect(events.map { $0["event"] as? String } == ["enter", "leave", "enter"])
            #expect(events.map { $0["region"] as? String } == ["Office", "Office", "Gym"])
            #expect(events.map { $0["rid"] as? String } == ["a1b2c3d4", "a1b2c3d4", "9f8e7d6c"])
            #expect(events.allSatisfy { $0["trigger"] as? String == "c" })
            #expect(
                events.map { $0["time"] as? String }
                    == [3, 7, 9].map { Timestamp(seconds: Double(Self.start + 60 * $0)).iso8601() })

            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            let transitions = try store.transitions(of: session.id)
            #expect(transitions.map(\.regionIsKnown) == [true, true, false])
            #expect(transitions[0].region.radius == 120 && abs(transitions[0].region.latitude - 52.2281) < 1e-9)
            #expect(
                transitions.map { $0.region.created.milliseconds / 1000 } == [
                    1_709_280_000, 1_709_280_000, 1_709_270_000,
                ])
        }
    }

    @Test(arguments: ["rec", "owntracks"])
    func gpslogsOwnExportComesBackWithItsTransitions(format: String) throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try Self.month.write(toFile: dir + "/2024-03.rec", atomically: true, encoding: .utf8)
            try #require(try runGPSLog(["import", dir + "/2024-03.rec", "--name", "March"], database: db).status == 0)
            let export = try runGPSLog(["export", "March", "--format", format], database: db)
            try #require(export.status == 0, "\(export.stderr)")
            let lines = export.stdout.split(separator: "\n")
            // The Office's waypoint (the Gym's centre is not known), 10 locations, 3 transitions.
            #expect(lines.count == 14, "\(export.stdout)")
            if format == "rec" {
                // As the Recorder files them: the relative topic in the second column, padded to 18.
                let types = lines.map { $0.split(separator: "\t")[1] }
                #expect(types.filter { $0 == "*                 " }.count == 10)
                #expect(types.filter { $0 == "event             " }.count == 3)
                #expect(types.filter { $0 == "waypoint          " }.count == 1)
                #expect(lines.allSatisfy { $0.split(separator: "\t").count == 3 && $0.prefix(20).hasSuffix("Z") })
            }
            let file = dir + "/again." + (format == "rec" ? "rec" : "jsonl")
            try export.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            let again = try runGPSLog(["import", file, "--name", "Again"], database: db)
            try #require(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains(": 10 entries"), "\(again.stdout)")
            // Every transition comes back as it was (the Gym's centre still unknown), and exports the same bytes.
            let before = try Self.events("March", db: db)
            let after = try Self.events("Again", db: db)
            #expect(after.count == 3)
            #expect(
                try JSONSerialization.data(withJSONObject: after, options: .sortedKeys)
                    == JSONSerialization.data(withJSONObject: before, options: .sortedKeys))
            let second = try runGPSLog(["export", "Again", "--format", format], database: db)
            #expect(second.stdout == export.stdout)
        }
    }
}
