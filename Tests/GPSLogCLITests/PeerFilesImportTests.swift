// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog import` of files as other programs write them, where an older gpslog refused them or lost points: times
/// that stand for "no time", Google's untimed waypoint paths, GeoJSON coordinates written as text and times under
/// other names, KML MultiGeometry holding Points beside a line. Each fixture is written from the format's published
/// description (cited at each).
@Suite(.ownThreads, .serialized)
struct PeerFilesImportTests {
    /// The rows of `gpslog export SESSION --format csv`: kind, time, latitude, longitude, name (the label).
    static func rows(_ session: String, db: String) throws -> [[String]] {
        let out = try runGPSLog(["export", session, "--format", "csv"], database: db)
        #expect(out.status == 0, "\(out.stderr)")
        return out.stdout.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map {
            let c = $0.components(separatedBy: ",")
            return [c[2], c[3], c[4], c[5], c[18]]
        }
    }

    /// GPX 1.0 as GPSBabel writes it (https://www.topografix.com/GPX/1/0/gpx.xsd: `gpx/time`, `trk/trkseg/trkpt` with
    /// `ele` and `time`), every point at `1901-12-13T20:45:52.2073437Z`, the signed 32-bit minimum of seconds that
    /// GPSBabel writes for "no time", and a waypoint at 1970-01-01: each point is untimed and takes the file's
    /// metadata time, said in a note; a TCX Trackpoint (Garmin's TrainingCenterDatabase v2 schema,
    /// https://www8.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd) and KML times (a TimeStamp's `when`, a
    /// `gx:Track`'s, https://developers.google.com/kml/documentation/kmlreference) likewise.
    @Test func sentinelTimesMakePointsUntimedInsteadOfRefusingTheFile() throws {
        try withTemporaryDirectory { dir in
            let gpx = dir + "/babel.gpx"
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.0" creator="GPSBabel - https://www.gpsbabel.org" xmlns="http://www.topografix.com/GPX/1/0">
              <time>2019-03-04T05:06:07Z</time>
              <wpt lat="52.15" lon="5.15"><time>1970-01-01T00:00:00Z</time><name>Hut</name></wpt>
              <trk><name>Babel</name><trkseg>
                <trkpt lat="52.1" lon="5.1"><ele>3</ele><time>1901-12-13T20:45:52.2073437Z</time></trkpt>
                <trkpt lat="52.2" lon="5.2"><ele>4</ele><time>1901-12-13T20:45:52.2073437Z</time></trkpt>
                <trkpt lat="52.3" lon="5.3"><ele>5</ele><time>1901-12-13T20:45:52.2073437Z</time></trkpt>
              </trkseg></trk>
            </gpx>
            """.write(toFile: gpx, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", gpx], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasPrefix("Imported 'Babel' (") && r.stdout.hasSuffix(": 4 entries.\n"), "\(r.stdout)")
            #expect(
                r.stderr == """
                    \(gpx): note: read 4 point time(s) before 1980 or at a 32-bit limit (first '1970-01-01T00:00:00Z', \
                    a device's "no time") as no time: each such point took the time of the timed point before it (or \
                    after it), else the file's metadata time, else its modification time

                    """)
            #expect(
                try Self.rows("Babel", db: db) == [
                    ["track", "2019-03-04T05:06:07Z", "52.1", "5.1", ""],
                    ["track", "2019-03-04T05:06:07Z", "52.2", "5.2", ""],
                    ["track", "2019-03-04T05:06:07Z", "52.3", "5.3", ""],
                    ["mark", "2019-03-04T05:06:07Z", "52.15", "5.15", "Hut"],
                ])

            // A time past tomorrow that no device means as "none" is still refused, naming the line.
            let future = dir + "/future.gpx"
            try """
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52.1" lon="5.1"><time>2999-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>
            """.write(toFile: future, atomically: true, encoding: .utf8)
            let refused = try runGPSLog(["import", future], database: db)
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "Error: \(future):2: time '2999-01-01T00:00:00Z' is not valid; nothing was imported.\n")

            let tcx = dir + "/ride.tcx"
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
              <Activities><Activity Sport="Biking"><Id>2024-05-01T08:00:00Z</Id><Lap StartTime="2024-05-01T08:00:00Z">
                <Track>
                  <Trackpoint><Time>1901-12-13T20:45:52Z</Time>
                    <Position><LatitudeDegrees>52.1</LatitudeDegrees><LongitudeDegrees>5.1</LongitudeDegrees></Position>
                  </Trackpoint>
                  <Trackpoint><Time>2024-05-01T08:00:10Z</Time>
                    <Position><LatitudeDegrees>52.2</LatitudeDegrees><LongitudeDegrees>5.2</LongitudeDegrees></Position>
                  </Trackpoint>
                  <Trackpoint><Time>2024-05-01T08:00:20Z</Time>
                    <Position><LatitudeDegrees>52.3</LatitudeDegrees><LongitudeDegrees>5.3</LongitudeDegrees></Position>
                  </Trackpoint>
                </Track>
              </Lap></Activity></Activities>
            </TrainingCenterDatabase>
            """.write(toFile: tcx, atomically: true, encoding: .utf8)
            let t = try runGPSLog(["import", tcx], database: db)
            #expect(t.status == 0 && t.stdout.hasSuffix(": 3 entries.\n"), "\(t.stderr)")
            #expect(
                t.stderr == """
                    \(tcx): note: read 1 Time(s) before 1980 or at a 32-bit limit (first '1901-12-13T20:45:52Z', a \
                    device's "no time") as no time: each such point took the time of the point before it (or after \
                    it, else the file's modification time)

                    """)
            #expect(
                try Self.rows("ride", db: db).map { $0[1] } == [
                    "2024-05-01T08:00:10Z", "2024-05-01T08:00:10Z", "2024-05-01T08:00:20Z",
                ])

            let kml = dir + "/earth.kml"
            try """
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>
              <Placemark><name>Drive</name><gx:Track>
                <when>2024-05-01T09:00:00Z</when><when>1970-01-01T00:00:00Z</when><when>2024-05-01T09:00:20Z</when>
                <gx:coord>5.1 52.1 0</gx:coord><gx:coord>5.2 52.2 0</gx:coord><gx:coord>5.3 52.3 0</gx:coord>
              </gx:Track></Placemark>
            </Document></kml>
            """.write(toFile: kml, atomically: true, encoding: .utf8)
            let k = try runGPSLog(["import", kml], database: db)
            #expect(k.status == 0 && k.stdout.hasSuffix(": 3 entries.\n"), "\(k.stderr)")
            #expect(
                k.stderr == """
                    \(kml): note: read 1 time(s) before 1980 or at a 32-bit limit (first '1970-01-01T00:00:00Z', a \
                    device's "no time") as no time: their points are dated as points without a time are
                    \(kml): note: 1 track point(s) have no time: each took the time of the point before it (or after \
                    it, else the file's modification time)

                    """)
            #expect(
                try Self.rows("Drive", db: db).map { $0[1] } == [
                    "2024-05-01T09:00:00Z", "2024-05-01T09:00:00Z", "2024-05-01T09:00:20Z",
                ])
        }
    }

    /// A Semantic Location History month of 2013 (https://locationhistoryformat.com/reference/semantic:
    /// `timelineObjects[].activitySegment` with `duration.startTimestamp`/`endTimestamp` and
    /// `waypointPath.waypoints[]` of `latE7`/`lngE7`, no times; start and end locations empty as in those years'
    /// exports): the path is placed between the segment's times, the first waypoint at the start, the last at the
    /// end, the one between by distance (a quarter of the way: a quarter of the time). A later segment with timed
    /// `simplifiedRawPath` points keeps those, and its waypoints are skipped, each said in a note.
    @Test func semanticWaypointPathsArePlacedBetweenTheSegmentsTimes() throws {
        try withTemporaryDirectory { dir in
            let month = dir + "/2013_JUNE.json"
            try """
            {"timelineObjects": [
              {"activitySegment": {
                "startLocation": {}, "endLocation": {},
                "duration": {"startTimestamp": "2013-06-01T10:00:00Z", "endTimestamp": "2013-06-01T10:20:00Z"},
                "activityType": "WALKING",
                "waypointPath": {"waypoints": [
                  {"latE7": 520000000, "lngE7": 50000000},
                  {"latE7": 520010000, "lngE7": 50000000},
                  {"latE7": 520040000, "lngE7": 50000000}]}}},
              {"activitySegment": {
                "startLocation": {"latitudeE7": 521000000, "longitudeE7": 51000000},
                "endLocation": {"latitudeE7": 521100000, "longitudeE7": 51100000},
                "duration": {"startTimestamp": "2013-06-01T11:00:00Z", "endTimestamp": "2013-06-01T11:30:00Z"},
                "activityType": "IN_BUS",
                "waypointPath": {"waypoints": [{"latE7": 521000000, "lngE7": 51000000},
                                               {"latE7": 521100000, "lngE7": 51100000}]},
                "simplifiedRawPath": {"points": [
                  {"latE7": 521050000, "lngE7": 51050000, "accuracyMeters": 10, "timestamp": "2013-06-01T11:15:00Z"}]}}}
            ]}
            """.write(toFile: month, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", month], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasSuffix(": 6 entries.\n"), "\(r.stdout)")
            #expect(
                r.stderr == """
                    \(month): note: placed 3 waypointPath point(s) of 1 activity segment(s), which have no times, \
                    between the segment's start and end: the first at the start, the last at the end, the rest by \
                    distance along the path
                    \(month): note: skipped 2 waypointPath point(s): they have no times, and their segment has timed \
                    simplifiedRawPath points or no start and end time

                    """)
            let rows = try Self.rows("2013_JUNE", db: db).map { Array($0[1...3]) }.sorted { $0[0] < $1[0] }
            #expect(
                rows == [
                    ["2013-06-01T10:00:00Z", "52", "5"],
                    ["2013-06-01T10:05:00Z", "52.001", "5"],
                    ["2013-06-01T10:20:00Z", "52.004", "5"],
                    ["2013-06-01T11:00:00Z", "52.1", "5.1"],
                    ["2013-06-01T11:15:00Z", "52.105", "5.105"],
                    ["2013-06-01T11:30:00Z", "52.11", "5.11"],
                ], "\(rows)")
        }
    }

    /// A segment's waypoint path waits for the segment's end in a scratch file, not in memory: 500,000 waypoints
    /// import in about the memory 10 take (the peak resident size of `gpslog import`; held in memory they would add
    /// 16 MB and more; measured on this VM: 44 MB for 10, 54 MB for 500,000).
    @Test func aLongWaypointPathImportsInFlatMemory() throws {
        try withTemporaryDirectory { dir in
            var peaks: [Int] = []
            for n in [10, 500_000] {
                let path = dir + "/\(n).json"
                try writeGeneratedFile(
                    path,
                    head: """
                        {"timelineObjects": [{"activitySegment": {"startLocation": {}, "endLocation": {},
                        "activityType": "WALKING", "waypointPath": {"waypoints": [
                        """,
                    count: n,
                    tail: """
                        ]}, "duration": {"startTimestamp": "2013-06-01T10:00:00Z",
                        "endTimestamp": "2013-06-01T20:00:00Z"}}}]}
                        """
                ) { i in
                    (i == 0 ? "" : ",\n") + #"{"latE7": \#(520_000_000 + i * 10), "lngE7": 50000000}"#
                }
                let run = try runGPSLogMeasuringMemory(
                    ["import", path], database: dir + "/\(n).sqlite", outputPath: dir + "/\(n)")
                let out = try String(contentsOfFile: dir + "/\(n).out", encoding: .utf8)
                #expect(run.status == 0 && out.hasSuffix(": \(n) entries.\n"), "\(out)")
                peaks.append(run.peakBytes)
            }
            let growth = peaks[1] - peaks[0]
            print("waypointPath import peak RSS: 10 points \(peaks[0] >> 20) MB, 500,000 \(peaks[1] >> 20) MB")
            #expect(growth < 16 * 1024 * 1024, "500,000 waypoints took \(growth >> 20) MB more than 10")
        }
    }

    /// GeoJSON (RFC 7946, https://www.rfc-editor.org/rfc/rfc7946) Points whose positions are numbers written as
    /// text, as an older version of a popular self-hosted server exported them: read with a note; text that is not a
    /// number is refused with its path.
    @Test func geoJSONCoordinatesWrittenAsTextAreRead() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/export.geojson"
            try """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": ["5.1", "52.1"]},
               "properties": {"timestamp": 1714550400}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": ["5.2", "52.2", "7"]},
               "properties": {"timestamp": 1714550410}},
              {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [["5.3", "52.3"], [5.4, "52.4"]]},
               "properties": {"name": "Line", "coordTimes": ["2024-05-01T08:01:00Z", "2024-05-01T08:02:00Z"]}}
            ]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", path], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr == "\(path): note: read 8 coordinate(s) written as text (\"0.1\", not 0.1) as numbers\n")
            #expect(
                try Self.rows("export", db: db).map { Array($0[0...3]) } == [
                    ["track", "2024-05-01T08:00:00Z", "52.1", "5.1"],
                    ["track", "2024-05-01T08:00:10Z", "52.2", "5.2"],
                ])
            #expect(
                try Self.rows("Line", db: db).map { Array($0[1...3]) } == [
                    ["2024-05-01T08:01:00Z", "52.3", "5.3"], ["2024-05-01T08:02:00Z", "52.4", "5.4"],
                ])

            let bad = dir + "/bad.geojson"
            try """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": ["5.1", "north"]}, "properties": {}}]}
            """.write(toFile: bad, atomically: true, encoding: .utf8)
            let refused = try runGPSLog(["import", bad], database: dir + "/bad.sqlite")
            #expect(refused.status == 1)
            #expect(
                refused.stderr == "Error: \(bad):2: features[0].geometry.coordinates[1] (a coordinate) 'north' is not "
                    + "valid; nothing was imported.\n")
        }
    }

    /// GeoJSON Points whose time is under the names other trackers and servers use (`datetime`, `when`,
    /// `recorded_at`, `date`, `time`, `timestamp`; ISO 8601 text, Unix seconds or milliseconds): each is a timed track
    /// point; a Point with no time is a mark, said in a note.
    @Test func geoJSONTimesUnderOtherNamesAreRead() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/points.geojson"
            func point(_ lon: Double, _ properties: String) -> String {
                #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [\#(lon), 52.0]}, "properties": {\#(properties)}}"#
            }
            try """
            {"type": "FeatureCollection", "features": [
              \(point(5.01, #""datetime": "2024-05-01T08:00:00Z""#)),
              \(point(5.02, #""when": "2024-05-01T10:00:10+02:00""#)),
              \(point(5.03, #""recorded_at": 1714550420000"#)),
              \(point(5.04, #""date": "2024-05-01T08:00:30.000Z", "note": "x""#)),
              \(point(5.05, #""time": 1714550440"#)),
              \(point(5.06, #""timestamp": "1714550450""#)),
              \(point(5.07, #""when": "at noon", "name": "Cafe""#))
            ]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", path], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasSuffix(": 7 entries.\n"), "\(r.stdout)")
            #expect(
                r.stderr == """
                    \(path): note: 1 Point feature(s) have no time (no timestamp, time, datetime, date, when, \
                    recorded_at, tst or isotst property that is one): imported as marks, each at the time of the point \
                    before it, else its session's start, else the file's modification time

                    """)
            #expect(
                try Self.rows("points", db: db).map { [$0[0], $0[1], $0[3], $0[4]] } == [
                    ["track", "2024-05-01T08:00:00Z", "5.01", ""],
                    ["track", "2024-05-01T08:00:10Z", "5.02", ""],
                    ["track", "2024-05-01T08:00:20Z", "5.03", ""],
                    ["track", "2024-05-01T08:00:30Z", "5.04", ""],
                    ["track", "2024-05-01T08:00:40Z", "5.05", ""],
                    ["track", "2024-05-01T08:00:50Z", "5.06", ""],
                    ["mark", "2024-05-01T08:00:50Z", "5.07", "Cafe"],
                ])
        }
    }

    /// A KML placemark (https://developers.google.com/kml/documentation/kmlreference#multigeometry) holding two Points
    /// and a four-point LineString under one TimeStamp: the line's points are the track, the Points its marks (as the
    /// Point placemarks after a line are), none dropped, said in a note.
    @Test func kmlMultiGeometryPointsBesideALineAreMarks() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/multi.kml"
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document>
              <Placemark><name>Walk</name><description>Dunes</description>
                <TimeStamp><when>2024-05-01T08:00:00Z</when></TimeStamp>
                <MultiGeometry>
                  <Point><coordinates>5.10,52.10</coordinates></Point>
                  <Point><coordinates>5.13,52.13</coordinates></Point>
                  <LineString><coordinates>5.10,52.10 5.11,52.11 5.12,52.12 5.13,52.13</coordinates></LineString>
                </MultiGeometry>
              </Placemark>
            </Document></kml>
            """.write(toFile: path, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", path], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasPrefix("Imported 'Walk' (") && r.stdout.hasSuffix(": 6 entries.\n"), "\(r.stdout)")
            #expect(
                r.stderr
                    == "\(path): note: imported 2 Point(s) of MultiGeometry placemarks that also have a line as marks\n"
            )
            #expect(
                try Self.rows("Walk", db: db) == [
                    ["track", "2024-05-01T08:00:00Z", "52.1", "5.1", ""],
                    ["track", "2024-05-01T08:00:00Z", "52.11", "5.11", ""],
                    ["track", "2024-05-01T08:00:00Z", "52.12", "5.12", ""],
                    ["track", "2024-05-01T08:00:00Z", "52.13", "5.13", ""],
                    ["mark", "2024-05-01T08:00:00Z", "52.1", "5.1", "Walk"],
                    ["mark", "2024-05-01T08:00:00Z", "52.13", "5.13", "Walk"],
                ])
        }
    }
}
