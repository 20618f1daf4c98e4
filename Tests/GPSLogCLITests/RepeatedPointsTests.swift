// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// A device's point at one instant: a track point at the time and place of the one before it is a repeat and is
/// stored once, as `serve` stores a phone's re-sent point once; marks are kept whatever their time.
@Suite(.ownThreads)
struct RepeatedPointsTests {
    /// The minutes of ten locations, seven distinct: 1 twice, 3 three times.
    static let minutes = [0, 1, 1, 2, 3, 3, 3, 4, 5, 6]

    /// Google's Records.json (https://locationhistoryformat.com/reference/records/): all ten were kept.
    @Test func aRecordsJSONKeepsEachInstantOnce() throws {
        try withTemporaryDirectory { dir in
            let locations = Self.minutes.map { m in
                """
                {"latitudeE7": \(523_700_000 + m * 100), "longitudeE7": 48950000, "accuracy": 10,
                 "timestamp": "2022-02-12T22:0\(m):00Z"}
                """
            }
            let file = dir + "/Records.json"
            try "{\"locations\": [\(locations.joined(separator: ",\n"))]}".write(
                toFile: file, atomically: true, encoding: .utf8)
            let r = try runGPSLog(["import", file], database: dir + "/db.sqlite")
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stdout.hasSuffix(
                    ": 7 entries; left out 3 repeated points (the time and place of the point before).\n"),
                "\(r.stdout)")
            let csv = try runGPSLog(["export", "Records", "--format", "csv"], database: dir + "/db.sqlite").stdout
            let times = csv.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",")[3] }
            #expect(times.count == 7 && Set(times).count == 7, "\(times)")
        }
    }

    /// An OwnTracks Recorder `.rec` (recorder.c's `"%s\t%-18s\t%s\n"`, `*` before a location:
    /// https://github.com/owntracks/recorder): ten locations with two repeats were ten entries.
    @Test func aRecFileAndAMarkAtATakenInstant() throws {
        try withTemporaryDirectory { dir in
            // Seconds and places (0: the track's own place at that second): 60 and 240 repeated, and at 360 two
            // places in one second, both kept (OwnTracks' times are whole seconds).
            let points = [
                (0, 0), (60, 0), (60, 0), (120, 0), (180, 0), (240, 0), (240, 0), (300, 0), (360, 0), (360, 5),
            ]
            let lines = points.map { s, offset in
                let tst = 1_709_283_789 + s
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(tst)))
                let lon = 13.332 + Double(s + offset) / 100_000
                return
                    "\(time)\t*                 \t{\"_type\":\"location\",\"tid\":\"RO\",\"lat\":52.225,\"lon\":\(lon),\"tst\":\(tst),\"acc\":10}"
            }
            let rec = dir + "/2024-03.rec"
            try (lines.joined(separator: "\n") + "\n").write(toFile: rec, atomically: true, encoding: .utf8)
            let db = dir + "/db.sqlite"
            let r = try runGPSLog(["import", rec], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains(": 8 entries; left out 2 repeated points"), "\(r.stdout)")

            // A mark at the time of a track point is not a repeat: marks are what the user said, at any time.
            #expect(try runGPSLog(["import", "--sample", "--name", "Walk"], database: db).status == 0)
            let xml = dir + "/walk.xml"
            #expect(try runGPSLog(["export", "Walk", "--format", "xml", "-o", xml], database: db).status == 0)
            let back = try runGPSLog(["import", xml, "--name", "Again"], database: db)
            #expect(back.status == 0 && !back.stdout.contains("repeated"), "\(back.stdout)")
            let marks = { (name: String) in
                try runGPSLog(["export", name, "--format", "csv"], database: db).stdout.split(
                    whereSeparator: \.isNewline
                )
                .filter { $0.split(separator: ",", omittingEmptySubsequences: false)[2] != "track" }.count
            }
            #expect(try marks("Walk") > 0 && marks("Walk") == marks("Again"))
        }
    }
}
