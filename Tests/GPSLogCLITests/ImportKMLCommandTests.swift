// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog import` of KML, KMZ and TCX through the real binary: what it prints, what it refuses, and memory that
/// stays flat whatever the track's length.
@Suite(.ownThreads)
struct ImportKMLCommandTests {
    static let seeds = TestPaths.packageRoot + "/Tests/Fixtures/fuzz"

    @Test func kmzAndTCXImportWithNotesOnStderrAndABombImportsNothing() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let kmz = Self.seeds + "/kml/seeds/doc.kmz"
            let tcx = Self.seeds + "/tcx/seeds/course.tcx"
            let r = try runGPSLog(["import", kmz, tcx], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("Imported 'Morning ride' (") && r.stdout.contains(": 5 entries."))
            #expect(r.stdout.contains("Imported 'Lake loop' (") && r.stdout.contains(": 3 entries."))
            #expect(r.stderr == "\(kmz): note: dropped 3 heart rate values (gpslog has no column for them)\n")

            let bomb = dir + "/bomb.kmz"
            let made = try runTool(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED); "
                        + "z.writestr('doc.kml', '<kml>' + ' ' * 50_000_000 + '</kml>'); z.close()", bomb,
                ])
            #expect(made.status == 0)
            let refused = try runGPSLog(["import", bomb], database: db)
            #expect(refused.status == 1)
            #expect(refused.stderr.hasPrefix("Error: \(bomb) (doc.kml): would inflate "))
            #expect(
                refused.stderr.hasSuffix(
                    "a zip bomb, not KML (which compresses at most about 30 times); nothing was imported.\n"))
            let sessions = try runGPSLog(["sessions"], database: db)
            #expect(sessions.stdout.split(separator: "\n").count == 3, "\(sessions.stdout)")  // the header and two
        }
    }

    /// A `gx:Track` of 100,000 points (every time first, as Google Earth writes it) and a LineString of as many with
    /// a time span (as gpslog writes it) import in the memory a 10-point one takes: the times and points wait in a
    /// scratch file, not in memory.
    @Test func longTracksImportInFlatMemory() throws {
        func gxTrack(_ n: Int) -> String {
            var text =
                #"<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">"#
                + "<Placemark><name>Long</name><gx:Track>\n"
            let start = 1_700_000_000
            for i in 0..<n {
                text += "<when>\(Date(timeIntervalSince1970: Double(start + i)).ISO8601Format())</when>\n"
            }
            for i in 0..<n { text += "<gx:coord>\(5 + Double(i) * 1e-6) \(52 + Double(i) * 1e-6) 3</gx:coord>\n" }
            return text + "</gx:Track></Placemark></kml>\n"
        }
        func lineString(_ n: Int) -> String {
            var text =
                #"<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>Long</name>"#
                + "<TimeSpan><begin>2023-11-14T22:13:20Z</begin><end>2023-11-16T01:59:59Z</end></TimeSpan>"
                + "<LineString><altitudeMode>absolute</altitudeMode><coordinates>\n"
            for i in 0..<n { text += "\(5 + Double(i) * 1e-6),\(52 + Double(i) * 1e-6),3 " }
            return text + "</coordinates></LineString></Placemark></kml>\n"
        }
        try withTemporaryDirectory { dir in
            for (kind, make) in [("gx", gxTrack), ("line", lineString)] {
                var peaks: [Int] = []
                for n in [10, 100_000] {
                    let path = dir + "/\(kind)-\(n).kml"
                    try make(n).write(toFile: path, atomically: true, encoding: .utf8)
                    let run = try runGPSLogMeasuringMemory(
                        ["import", path], database: dir + "/\(kind)-\(n).sqlite", outputPath: dir + "/\(kind)-\(n)")
                    let out = try String(contentsOfFile: dir + "/\(kind)-\(n).out", encoding: .utf8)
                    #expect(run.status == 0 && out.contains(": \(n) entries."), "\(out)")
                    peaks.append(run.peakBytes)
                }
                let growth = peaks[1] - peaks[0]
                #expect(growth < 24 * 1024 * 1024, "\(kind): 100,000 points took \(growth >> 20) MB more than 10")
            }
        }
    }
}
