// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `-` as the file of `import` and `convert`, in every format gpslog writes, and `convert --split-by day` in a
/// `--timezone`.
@Suite(.ownThreads)
struct StandardInputTests {
    static let formats = ["xml", "gpx", "geojson", "kml", "csv", "overland", "owntracks", "rec"]

    /// Each export of the bundled recording comes back through standard input as it does from its file, told by its
    /// content or by `--format`; `import -` used to read NMEA only, and `convert -` looked for a file named "-".
    @Test func everyFormatComesInThroughStandardInput() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/source.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Walk"], database: db).status == 0)
            for format in Self.formats {
                let file = dir + "/walk.\(format)"
                let export = try runGPSLog(["export", "Walk", "--format", format, "-o", file], database: db)
                #expect(export.status == 0, "\(format): \(export.stderr)")
                let text = try String(contentsOfFile: file, encoding: .utf8)
                let fromFile = try runGPSLog(
                    ["import", file, "--name", "In"], database: dir + "/\(format)-file.sqlite")
                #expect(fromFile.status == 0, "\(format): \(fromFile.stderr)")
                let entries = try Self.entries(in: fromFile.stdout)
                for told in [[], ["--format", format == "rec" ? "owntracks" : format]] {
                    let piped = try runGPSLog(
                        ["import", "-", "--name", "In"] + told, database: dir + "/\(format)-\(told.count).sqlite",
                        input: text)
                    #expect(piped.status == 0, "\(format) \(told): \(piped.stderr)")
                    #expect(try Self.entries(in: piped.stdout) == entries, "\(format) \(told): \(piped.stdout)")
                }
                let converted = dir + "/\(format)-converted.gpx"
                let convert = try runGPSLog(["convert", "-", converted], input: text)
                #expect(convert.status == 0, "\(format): \(convert.stderr)")
                let points = try String(contentsOfFile: converted, encoding: .utf8).components(separatedBy: "<trkpt ")
                #expect(points.count > 1, "\(format)")
            }
        }
    }

    /// What cannot be read from standard input says "standard input", never the private copy's path.
    @Test func badInputNamesStandardInput() throws {
        try withTemporaryDirectory { dir in
            let r = try runGPSLog(["import", "-"], database: dir + "/db.sqlite", input: "not a track\n")
            #expect(r.status != 0)
            #expect(r.stderr.hasPrefix("Error: standard input: not a format gpslog reads"), "\(r.stderr)")
            #expect(!r.stderr.contains("gpslog-stdin"), "\(r.stderr)")
            let c = try runGPSLog(["convert", "-", dir + "/out.gpx"], input: "{\"neither\": 1}")
            #expect(c.status != 0 && c.stderr.contains("standard input"), "\(c.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.gpx"))
        }
    }

    /// `convert --split-by day` cuts a Google Records.json at the midnights of `--timezone` (it had no such option,
    /// though the README says convert takes what import takes), and of TZ without it.
    @Test func convertSplitsByDayInTheZoneGiven() throws {
        try withTemporaryDirectory { dir in
            let records = dir + "/Records.json"
            try GoogleImportCommandTests.writeRecords(150, to: records)  // 22:00Z to 00:29Z
            let amsterdam = dir + "/amsterdam.gpx"
            let r = try runGPSLog(
                ["convert", records, amsterdam, "--split-by", "day", "--timezone", "Europe/Amsterdam"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.pointsPerTrack(amsterdam) == ["Records 2022-02-12": 60, "Records 2022-02-13": 90])
            let utc = dir + "/utc.gpx"
            let u = try runGPSLog(["convert", records, utc, "--split-by", "day"], environment: ["TZ": "UTC"])
            #expect(u.status == 0, "\(u.stderr)")
            #expect(try Self.pointsPerTrack(utc) == ["Records 2022-02-12": 120, "Records 2022-02-13": 30])
            let bad = try runGPSLog([
                "convert", records, dir + "/x.gpx", "--split-by", "day", "--timezone", "Mars/Base",
            ])
            #expect(bad.status != 0 && bad.stderr.contains("'Mars/Base' is not a known time zone"), "\(bad.stderr)")
        }
    }

    /// The entry count of `import`'s "Imported 'NAME' (ID): N entries" lines.
    private static func entries(in stdout: String) throws -> [Int] {
        try stdout.split(separator: "\n").filter { $0.hasPrefix("Imported ") }.map { line in
            let after = try #require(line.range(of: "): ")).upperBound
            return try #require(Int(line[after...].prefix { $0.isNumber }))
        }
    }

    /// Each `<trk>`'s name and its number of points.
    private static func pointsPerTrack(_ path: String) throws -> [String: Int] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var result: [String: Int] = [:]
        for track in text.components(separatedBy: "<trk>").dropFirst() {
            let name = track.components(separatedBy: "<name>").dropFirst().first?.components(separatedBy: "</name>")
            result[name?.first ?? "?"] = track.components(separatedBy: "<trkpt ").count - 1
        }
        return result
    }
}
