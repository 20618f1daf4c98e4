// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// Hardening finding 9: an empty `<trk><name>` failed the whole import with a message naming neither file nor line.
/// An empty name is no name: the session is named after the file.
@Suite(.ownThreads)
struct EmptyNameTests {
    @Test(arguments: ["<metadata><name> </name></metadata>", ""])
    func anEmptyTrackNameFallsBackToTheFilesName(metadata: String) throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/Morning walk.gpx"
            let gpx = """
                <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">\(metadata)\
                <trk><name></name><trkseg><trkpt lat="52.1" lon="5.3"><time>2024-05-01T06:00:00Z</time></trkpt>\
                <trkpt lat="52.2" lon="5.3"><time>2024-05-01T06:00:01Z</time></trkpt></trkseg></trk></gpx>
                """
            try gpx.write(toFile: path, atomically: true, encoding: .utf8)
            let db = dir + "/db.sqlite"
            let r = try runGPSLog(["import", path], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            let list = try runGPSLog(["sessions"], database: db)
            #expect(list.stdout.contains("Morning walk"), "\(list.stdout)")
        }
    }

    /// Found by the fuzzer: a blank Name in a session export was refused by the store, naming no file or line.
    @Test func aBlankSessionNameInASessionExportFallsBackToTheFilesName() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/Evening sail.xml"
            try """
            <?xml version="1.0"?><Sessions xmlns="urn:gpslog:sessions:1"><Session Name=" " StartTime="2024-05-01T06:00:00Z">\
            <Entry Latitude="52.1" Longitude="5.3" TimeStamp="2024-05-01T06:00:00Z"/></Session></Sessions>
            """.write(toFile: path, atomically: true, encoding: .utf8)
            let db = dir + "/db.sqlite"
            let r = try runGPSLog(["import", path], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try runGPSLog(["sessions"], database: db).stdout.contains("Evening sail"))
        }
    }
}
