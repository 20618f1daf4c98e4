// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `import --merge` of a GPX whose tracks are out of time order and whose first track has no time at all (as a
/// Garmin's "ACTIVE LOG" files are: gpxpy's test set has one): the session starts at its first entry and ends at its
/// last, and the untimed track is dated at the file's first time (the time after it), not at its metadata time.
@Suite(.ownThreads)
struct ImportMergeTests {
    static let threeTracks = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
          <metadata><time>2024-05-02T06:00:00Z</time></metadata>
          <trk><name>Untimed</name><trkseg><trkpt lat="52.0" lon="5.0"/><trkpt lat="52.01" lon="5.0"/></trkseg></trk>
          <trk><name>Afternoon</name><trkseg>
            <trkpt lat="52.3" lon="5.3"><time>2024-05-01T15:00:00Z</time></trkpt>
            <trkpt lat="52.4" lon="5.4"><time>2024-05-01T15:30:00Z</time></trkpt></trkseg></trk>
          <trk><name>Morning</name><trkseg>
            <trkpt lat="52.1" lon="5.1"><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="52.2" lon="5.2"><time>2024-05-01T08:10:00Z</time></trkpt></trkseg></trk>
        </gpx>
        """

    @Test func theMergedSessionSpansItsFirstAndLastEntry() throws {
        try withTemporaryDirectory { dir in
            let gpx = dir + "/day.gpx"
            try Self.threeTracks.write(toFile: gpx, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let imported = try runGPSLog(["import", gpx, "--merge"], database: db)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.hasSuffix(": 6 entries.\n"), "\(imported.stdout)")

            let listed = try runGPSLog(["sessions", "--json"], database: db)
            let sessions = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            try #require(sessions.count == 1, "\(listed.stdout)")
            #expect(sessions[0]["start"] as? String == "2024-05-01T08:00:00Z")
            #expect(sessions[0]["end"] as? String == "2024-05-01T15:30:00Z")
            #expect(sessions[0]["durationSeconds"] as? Int == 27_000)

            // The untimed track is dated at the first time after it: 15:00, where the next track starts.
            let csv = try runGPSLog(["export", "Untimed", "--format", "csv", "-o", "-"], database: db)
            let rows = csv.stdout.split(whereSeparator: \.isNewline).dropFirst().map { line in
                let f = line.split(separator: ",", omittingEmptySubsequences: false)
                return "\(f[3]) \(f[4]) \(f[5])"
            }
            #expect(
                rows == [
                    "2024-05-01T08:00:00Z 52.1 5.1", "2024-05-01T08:10:00Z 52.2 5.2", "2024-05-01T15:00:00Z 52 5",
                    "2024-05-01T15:00:00Z 52.01 5", "2024-05-01T15:00:00Z 52.3 5.3", "2024-05-01T15:30:00Z 52.4 5.4",
                ], "\(csv.stdout)")

            // The untimed track is a segment of its own: a line of its two points in the GeoJSON.
            let geojson = try runGPSLog(["export", "Untimed", "--format", "geojson", "-o", "-"], database: db)
            #expect(geojson.stdout.contains("[[5,52],[5,52.01]]"), "\(geojson.stdout.prefix(600))")
        }
    }
}
