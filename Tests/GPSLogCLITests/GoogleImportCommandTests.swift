// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

/// `import` of Google location history through the real binary: `--split-by day` in `--timezone`, a dry run, the
/// visits a semantic file brings, and memory that stays flat however long a Records.json is.
@Suite(.ownThreads, .serialized)
struct GoogleImportCommandTests {
    /// Records.json (the layout of locationhistoryformat.com's reference, https://locationhistoryformat.com/reference/records)
    /// of `count` locations a minute apart from 2022-02-12T22:00Z, written in chunks.
    static func writeRecords(_ count: Int, to path: String) throws {
        let start = 1_644_703_200  // 2022-02-12T22:00:00Z
        try writeGeneratedFile(path, head: "{\n  \"locations\": [", count: count, tail: "]\n}\n") { i in
            let time = Timestamp(seconds: Double(start + i * 60)).iso8601()
            return (i == 0 ? "{\n" : ", {\n") + """
                    "latitudeE7": \(523_700_000 + i % 100_000),
                    "longitudeE7": \(48_950_000 + i % 70_000),
                    "accuracy": \(5 + i % 20),
                    "altitude": 2,
                    "source": "WIFI",
                    "deviceTag": 1234567890,
                    "timestamp": "\(time)"
                  }
                """
        }
    }

    @Test func splitByDayMakesASessionPerLocalDay() throws {
        try withTemporaryDirectory { dir in
            let records = dir + "/Records.json"
            try Self.writeRecords(150, to: records)  // 22:00Z to 00:29Z: 23:00 to 01:29 in Amsterdam
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(
                ["import", records, "--split-by", "day", "--timezone", "Europe/Amsterdam", "--name", "Phone"],
                database: db)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            #expect(lines[0].hasPrefix("Imported 'Phone 2022-02-12' (") && lines[0].hasSuffix(": 60 entries."))
            #expect(lines[1].hasPrefix("Imported 'Phone 2022-02-13' (") && lines[1].hasSuffix(": 90 entries."))

            // Without a zone, TZ's days.
            let utc = try runGPSLog(
                ["import", records, "--split-by", "day"], database: dir + "/utc.sqlite", environment: ["TZ": "UTC"])
            #expect(utc.status == 0, "\(utc.stderr)")
            #expect(utc.stdout.contains("'Records 2022-02-12'") && utc.stdout.contains(": 120 entries."))

            // Not Google: said, and imported as usual.
            let gpx = dir + "/walk.gpx"
            try """
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52.1" lon="5.1"><time>2024-05-01T08:00:00Z</time></trkpt></trkseg></trk></gpx>
            """.write(toFile: gpx, atomically: true, encoding: .utf8)
            let other = try runGPSLog(["import", gpx, "--split-by", "day"], database: db)
            #expect(other.status == 0)
            #expect(
                other.stderr
                    == "\(gpx): note: --split-by is for Google location history; this file is imported as usual\n")
        }
    }

    @Test func aDryRunAndTheVisitsOfASemanticMonth() throws {
        try withTemporaryDirectory { dir in
            let month = dir + "/2022_MARCH.json"
            try GoogleSemanticMonth.text.write(toFile: month, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let dry = try runGPSLog(["import", "--dry-run", month], database: db)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(
                dry.stdout == """
                    \(month): would import 1 session, 3 points, 0 marks, 1 visit
                      '2022_MARCH': 3 points, 0 marks, 1 visit, from 2022-03-03T10:41:08.315Z to 2022-03-03T12:43:34Z
                    Nothing was written (--dry-run).

                    """)
            #expect(!FileManager.default.fileExists(atPath: db))
            let r = try runGPSLog(["import", month], database: db)
            #expect(r.status == 0 && r.stdout.hasSuffix(": 3 entries.\n"), "\(r.stderr)")
            #expect(
                r.stderr
                    == "\(month): note: stored 1 visit(s) with the session(s): 'gpslog visits SESSION' lists them\n")
            let visits = try runGPSLog(["visits", "2022_MARCH", "--json"], database: db)
            #expect(visits.status == 0)
            #expect(
                visits.stdout.contains(
                    #""address" : "La Sagrada Familia, C/ de Mallorca, 401, 08013 Barcelona, Espanya""#))
            #expect(visits.stdout.contains(#""durationSeconds" : 6075.685"#))
        }
    }

    /// A Records.json ten times as long takes no more memory to import: the peak resident size of `gpslog import`
    /// (its own, from `wait4`) for `big` locations is within a few megabytes of that for `small`.
    @Test func memoryStaysFlatWhateverTheFileSize() throws {
        let small = 100_000
        let big = 1_000_000
        try withTemporaryDirectory { dir in
            var peaks: [Int] = []
            for count in [small, big] {
                let path = dir + "/Records-\(count).json"
                try Self.writeRecords(count, to: path)
                let run = try runGPSLogMeasuringMemory(
                    ["import", path, "--split-by", "day"], database: dir + "/\(count).sqlite",
                    outputPath: dir + "/\(count)")
                let err = (try? String(contentsOfFile: dir + "/\(count).err", encoding: .utf8)) ?? ""
                #expect(run.status == 0, "\(err)")
                peaks.append(run.peakBytes)
                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.removeItem(atPath: dir + "/\(count).sqlite")
            }
            let growth = peaks[1] - peaks[0]
            print(
                "import peak RSS: \(small) locations \(peaks[0] / 1024 / 1024) MB, \(big) \(peaks[1] / 1024 / 1024) MB")
            #expect(growth < 16 * 1024 * 1024, "peaks \(peaks.map { $0 / 1024 / 1024 }) MB")
        }
    }
}

/// A Semantic Location History month: the `placeVisit` location and `activitySegment` examples of
/// locationhistoryformat.com's Semantic.schema.json (https://locationhistoryformat.com/reference/semantic), one raw
/// path point.
enum GoogleSemanticMonth {
    static let text = """
        {"timelineObjects": [
          {"placeVisit": {
            "location": {"latitudeE7": 414036299, "longitudeE7": 21743558, "name": "La Sagrada Familia",
                         "address": "C/ de Mallorca, 401\\n08013 Barcelona\\nEspanya"},
            "duration": {"startTimestamp": "2022-03-03T10:41:08.315Z", "endTimestamp": "2022-03-03T12:22:24Z"}}},
          {"activitySegment": {
            "startLocation": {"latitudeE7": 414083590, "longitudeE7": 21704229},
            "endLocation": {"latitudeE7": 413961889, "longitudeE7": 21536695},
            "duration": {"startTimestamp": "2022-03-03T12:22:24Z", "endTimestamp": "2022-03-03T12:43:34Z"},
            "activityType": "IN_BUS",
            "simplifiedRawPath": {"points": [
              {"latE7": 414032766, "lngE7": 21641819, "accuracyMeters": 10, "timestamp": "2022-03-03T12:27:48Z"}]}}}
        ]}
        """
}
