// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Hostile and broken input fails cleanly: an error naming the file and line, and nothing imported.
@Suite(.ownThreads)
struct HostileInputTests {
    static let gpxRoot = #"<gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="t">"#
    static let gpxHead = #"<?xml version="1.0" encoding="UTF-8"?>"# + gpxRoot
    static let validPoint = #"<trkpt lat="52.1" lon="5.1"><time>2024-01-01T00:00:00Z</time></trkpt>"#

    static let sessionsHead =
        #"<?xml version="1.0"?><Sessions xmlns="urn:gpslog:sessions:1"><Session Name="s" StartTime="2024-01-01T00:00:00Z">"#
    static func sessionEntry(_ attributes: String) -> String {
        #"<Entry Latitude="52" Longitude="5" TimeStamp="2024-01-01T00:00:00Z" "# + attributes + "/>"
    }

    static let cases: [(name: String, content: [UInt8], message: String)] =
        [
            (
                "xxe.gpx",
                Array(
                    ("<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n" + gpxRoot
                        + "<trk><name>&xxe;</name></trk></gpx>").utf8),
                "DTDs and entities are not accepted"
            ),
            (
                "laughs.gpx",
                Array(
                    ("<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>\n"
                        + gpxRoot + "<trk><name>&lol2;</name></trk></gpx>").utf8),
                "DTDs and entities are not accepted"
            ),
            (
                "truncated.gpx", Array((gpxHead + "\n<trk><trkseg>\n" + validPoint + "\n<trkpt lat=\"52.2\" lo").utf8),
                "truncated.gpx:4"
            ),
            (
                "namespace.gpx",
                Array(#"<?xml version="1.0"?><gpx xmlns="http://example.com/not-gpx"><trk/></gpx>"#.utf8),
                "not GPX 1.0 or 1.1"
            ),
            (
                "latitude.gpx",
                Array(
                    (gpxHead + "<trk><trkseg>\n" + validPoint
                        + "\n<trkpt lat=\"91.5\" lon=\"5\"/>\n</trkseg></trk></gpx>")
                        .utf8),
                "latitude.gpx:3: latitude '91.5' is not valid"
            ),
            (
                "nan.gpx",
                Array(
                    (gpxHead + "<trk><trkseg>\n" + validPoint + "\n" + validPoint
                        + "\n<trkpt lat=\"NaN\" lon=\"5\"/>\n</trkseg></trk></gpx>").utf8),
                "nan.gpx:4: latitude 'NaN' is not valid"
            ),
            (
                "utf8.gpx",
                Array((gpxHead + "<trk><name>ok</name>\n<trkseg>").utf8) + [
                    0x3C, 0x6E, 0x61, 0x6D, 0x65, 0x3E, 0xC3, 0x28, 0x3C, 0x2F, 0x6E, 0x61, 0x6D, 0x65, 0x3E,
                ] + Array("</trkseg></trk></gpx>".utf8),
                "utf8.gpx:2"
            ),
            (
                "overland.json",
                Array(
                    #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5,95]},"properties":{"timestamp":"2024-01-01T00:00:00Z"}}]}"#
                        .utf8),
                "locations[0].geometry.coordinates"
            ),
            (
                "owntracks.jsonl",
                Array(
                    "{\"_type\":\"location\",\"lat\":52,\"lon\":5,\"tst\":1700000000}\n{\"_type\":\"location\",\"lat\":52,\"lon\":500,\"tst\":1700000001}\n"
                        .utf8),
                "owntracks.jsonl:2: lon '500' is not valid"
            ),
            // A session export edited by hand: the database's rules are checked where the entry is read, so the refusal
            // names the line (the database could name only the entry's place in its batch).
            (
                "label.xml",
                Array(
                    (sessionsHead + "\n" + sessionEntry("") + "\n" + sessionEntry(#"Label="Buoy""#)
                        + "</Session></Sessions>")
                        .utf8),
                "label.xml:3: this Entry breaks the rule label_only_on_marks"
            ),
            (
                "course.xml",
                Array((sessionsHead + "\n\n" + sessionEntry(#"Course="360""#) + "</Session></Sessions>").utf8),
                "course.xml:3: this Entry breaks the rule course_in_range"
            ),
        ] + jsonAndCSVCases

    static let feature =
        #"{"type":"Feature","properties":{"time":"2024-01-01T00:00:00Z"},"geometry":{"type":"Point","coordinates":"#
    static let collectionHead = #"{"type":"FeatureCollection","features":["# + "\n"

    /// GeoJSON and CSV: refused with the line and the JSON path or the column.
    static let jsonAndCSVCases: [(name: String, content: [UInt8], message: String)] = [
        (
            "deep.geojson",
            Array(
                (feature + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}}").utf8),
            "deep.geojson:1: nested deeper than 64 levels at geometry.coordinates[0]"
        ),
        (
            "nan.geojson", Array((collectionHead + feature + "[5,52]}},\n" + feature + "[NaN,52]}}]}").utf8),
            "nan.geojson:3: 'N' cannot start a JSON value (JSON has no NaN or Infinity) at features[1].geometry.coordinates[0]"
        ),
        (
            "huge.geojson", Array((collectionHead + feature + "[1e400,52]}}]}").utf8),
            "huge.geojson:2: 1e400 is not a finite number at features[0].geometry.coordinates[0]"
        ),
        (
            "truncated.geojson", Array((collectionHead + feature + "[5,52]}},\n" + feature + "[5.1,5").utf8),
            "truncated.geojson:3: the file ends inside features[1].geometry.coordinates[1] (truncated?)"
        ),
        (
            "latitude.geojson", Array((collectionHead + feature + "[5,95]}}]}").utf8),
            "latitude.geojson:2: features[0].geometry.coordinates (longitude, latitude) '5.0, 95.0' is not valid"
        ),
        (
            "time.geojson",
            Array(
                (collectionHead
                    + #"{"type":"Feature","properties":{"time":"2999-01-01T00:00:00Z"},"geometry":{"type":"Point","coordinates":[5,52]}}]}"#)
                    .utf8),
            "time.geojson:2: features[0].properties.time '2999-01-01T00:00:00Z (outside 1980 to tomorrow)' is not valid"
        ),
        (
            "crs.geojson",
            Array(
                #"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"EPSG:3857"}},"features":[]}"#
                    .utf8),
            "crs.geojson:1: 'crs' is 'EPSG:3857': gpslog reads WGS 84 longitude and latitude only (RFC 7946)"
        ),
        (
            "coordtimes.geojson",
            Array(
                (collectionHead
                    + #"{"type":"Feature","properties":{"coordTimes":["2024-01-01T00:00:00Z"]},"geometry":{"type":"LineString","coordinates":[[5,52],[5.1,52.1]]}}]}"#)
                    .utf8),
            "coordtimes.geojson:2: more positions than 'coordTimes' (1) at features[0].geometry.coordinates[1]"
        ),
        (
            "coordattributes.geojson",
            Array(
                (collectionHead
                    + #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[5,52],[5.1,52.1]]},"properties":{"coordTimes":["2024-01-01T00:00:00Z","2024-01-01T00:00:01Z"],"coordAttributes":[{"a":"1"}]}}]}"#)
                    .utf8),
            "coordattributes.geojson:2: 2 positions but 1 'coordAttributes' (they pair one to one) at features[0]"
        ),
        (
            "attributeobject.geojson",
            Array(
                (collectionHead
                    + #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[5,52]]},"properties":{"coordTimes":["2024-01-01T00:00:00Z"],"coordAttributes":[["a"]]}}]}"#)
                    .utf8),
            "attributeobject.geojson:2: a position's attributes are an object of text values or null at "
                + "features[0].properties.coordAttributes[0][0]"
        ),
        (
            "nolatitude.csv", Array("time,lon,ele\n2024-01-01T00:00:00Z,5,1\n".utf8),
            "no latitude column in the CSV header (looked for latitude, lat, y"
        ),
        (
            "nan.csv", Array("time,lat,lon\n2024-01-01T00:00:00Z,52,5\n2024-01-01T00:00:01Z,NaN,5\n".utf8),
            "nan.csv:3: column 'lat' 'NaN' is not valid"
        ),
        (
            "huge.csv", Array("time;lat;lon\n2024-01-01T00:00:00Z;52,1;1e400\n".utf8),
            "huge.csv:2: column 'lon' '1e400' is not valid"
        ),
        (
            "utf16.csv",
            [0xFF, 0xFE]
                + "lat\tlon\ttime\n52\t5\t2024-01-01T00:00:00Z\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
            "utf16.csv: the file is UTF-16; JSON and CSV are read as UTF-8 (convert it: iconv -f UTF-16 -t UTF-8"
        ),
        (
            "quote.csv", Array("time,lat,lon,name\n2024-01-01T00:00:00Z,52,5,\"open".utf8),
            "quote.csv:2: a quoted field is not closed (truncated?)"
        ),
    ]

    @Test(arguments: cases.indices)
    func hostileInputFailsCleanly(index: Int) throws {
        let c = Self.cases[index]
        try withTemporaryDirectory { dir in
            let path = dir + "/" + c.name
            try Data(c.content).write(to: URL(fileURLWithPath: path))
            try withTemporaryStore { store, _ in
                let error = #expect(throws: ImportError.self) { _ = try FileImporter().importFile(path, into: store) }
                let text = error?.errorDescription ?? ""
                #expect(text.contains(path) || text.contains(c.name), "\(text)")
                #expect(text.contains(c.message), "\(text)")
                let sessions = try store.sessions()
                let entries = try store.database.scalar("SELECT COUNT(*) FROM Entries")?.int64
                #expect(sessions.isEmpty, "\(c.name) left a session behind")
                #expect(entries == 0)
            }
        }
    }
}
