// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `import --dry-run`, `--merge`, `--routes`, several tracks under one `--name`, and notes on stderr, through the
/// real binary.
@Suite(.ownThreads)
struct ImportCommandTests {
    static let twoTracksAndARoute = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="t">
          <wpt lat="52.0" lon="5.0"><time>2024-05-01T07:59:00Z</time><name>Start</name></wpt>
          <rte><name>Plan</name><rtept lat="52.5" lon="5.5"/><rtept lat="52.6" lon="5.6"/></rte>
          <trk><trkseg><trkpt lat="52.1" lon="5.1"><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="52.2" lon="5.2"><time>2024-05-01T08:01:00Z</time></trkpt></trkseg></trk>
          <trk><trkseg><trkpt lat="52.3" lon="5.3"><time>2024-05-01T09:00:00Z</time></trkpt></trkseg></trk>
        </gpx>
        """

    @Test func severalTracksUnderOneNameAreNumberedAndNotesGoToStderr() throws {
        try withTemporaryDirectory { dir in
            let gpx = dir + "/day.gpx"
            try Self.twoTracksAndARoute.write(toFile: gpx, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", gpx, "--name", "X"], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("Imported 'X (1)'") && r.stdout.contains("Imported 'X (2)'"))
            #expect(
                r.stderr
                    == "\(gpx): note: the root <gpx> has no namespace; read as GPX\n"
                    + "\(gpx): note: skipped 1 route (2 points); --routes imports each as a session\n")
            let merged = try runGPSLog(["import", gpx, "--merge", "--routes", "--name", "M"], database: db)
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stdout.hasPrefix("Imported 'M' (") && merged.stdout.hasSuffix(": 6 entries.\n"))
        }
    }

    @Test func aDryRunSaysWhatWouldBeImportedAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let gpx = dir + "/day.gpx"
            try Self.twoTracksAndARoute.write(toFile: gpx, atomically: true, encoding: .utf8)
            let csv = dir + "/walk.csv"
            try "lat;lon;time\n52,1;5,1;2024-05-01T08:00:00Z\n52,2;5,2;2024-05-01T08:00:10Z\n".write(
                toFile: csv, atomically: true, encoding: .utf8)
            let nmea = TestPaths.packageRoot + "/Sources/GPSLogBundledRecording/bundg_zeus_9.log"
            let db = dir + "/never.sqlite"
            let r = try runGPSLog(["import", "--dry-run", "--routes", gpx, csv, nmea], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "\(gpx): would import 3 sessions, 5 points, 1 mark")
            #expect(lines[1].hasPrefix("  'Plan': 2 points, 1 mark, from "))
            #expect(
                lines[2] == "  'day (1)': 2 points, 0 marks, from 2024-05-01T08:00:00Z to 2024-05-01T08:01:00Z")
            #expect(lines[3] == "  'day (2)': 1 point, 0 marks, from 2024-05-01T09:00:00Z to 2024-05-01T09:00:00Z")
            #expect(lines[4] == "\(csv): would import 1 session, 2 points, 0 marks")
            #expect(lines[6].hasPrefix("\(nmea): would import 1 session, "))
            #expect(lines.last == "Nothing was written (--dry-run).")
            #expect(!FileManager.default.fileExists(atPath: db))

            // A file the import would refuse is refused by the dry run, with its line; still nothing written.
            let bad = dir + "/bad.csv"
            try "lat,lon,time\n52,5,2024-05-01T08:00:00Z\n91,5,2024-05-01T08:00:01Z\n".write(
                toFile: bad, atomically: true, encoding: .utf8)
            let refused = try runGPSLog(["import", "--dry-run", bad], database: db)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("bad.csv:3: column 'lat' '91' is not valid; nothing was imported."))
            #expect(!FileManager.default.fileExists(atPath: db))
        }
    }
}
