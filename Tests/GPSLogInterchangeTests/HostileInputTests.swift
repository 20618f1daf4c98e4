// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogInterchange
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Hostile and broken input fails cleanly: an error naming the file and line, and nothing imported.
struct HostileInputTests {
    static let gpxRoot = #"<gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="t">"#
    static let gpxHead = #"<?xml version="1.0" encoding="UTF-8"?>"# + gpxRoot
    static let validPoint = #"<trkpt lat="52.1" lon="5.1"><time>2024-01-01T00:00:00Z</time></trkpt>"#

    static let sessionsHead =
        #"<?xml version="1.0"?><Sessions xmlns="urn:gpslog:sessions:1"><Session Name="s" StartTime="2024-01-01T00:00:00Z">"#
    static func sessionEntry(_ attributes: String) -> String {
        #"<Entry Latitude="52" Longitude="5" TimeStamp="2024-01-01T00:00:00Z" "# + attributes + "/>"
    }

    static let cases: [(name: String, content: [UInt8], message: String)] = [
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
            "namespace.gpx", Array(#"<?xml version="1.0"?><gpx xmlns="http://example.com/not-gpx"><trk/></gpx>"#.utf8),
            "not GPX 1.0 or 1.1"
        ),
        (
            "latitude.gpx",
            Array(
                (gpxHead + "<trk><trkseg>\n" + validPoint + "\n<trkpt lat=\"91.5\" lon=\"5\"/>\n</trkseg></trk></gpx>")
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
