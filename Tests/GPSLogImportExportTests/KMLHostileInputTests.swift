// SPDX-License-Identifier: MIT
import Foundation
import GPSLogImportExport
import GPSLogTestSupport
import Testing

@testable import GPSLogFormats
@testable import GPSLogStore

/// Hostile and broken KML, KMZ and TCX fail cleanly: an error naming the file (and the zip's entry) and the line,
/// and nothing imported.
@Suite(.ownThreads)
struct KMLHostileInputTests {
    static let kml =
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        + #"<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>"#
    static let good =
        "<Placemark><name>Ok</name><TimeStamp><when>2024-01-01T00:00:00Z</when></TimeStamp>"
        + "<Point><coordinates>5.1,52.1</coordinates></Point></Placemark>\n"
    static func line(_ coordinates: String) -> String {
        "<Placemark><name>Ride</name><LineString><coordinates>5.1,52.1 \(coordinates)</coordinates></LineString></Placemark>"
    }

    static let tcx =
        #"<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Running"><Lap><Track>"#
        + "\n"
    static func trackpoint(lat: String = "52.1", lon: String = "5.1", time: String = "2024-01-01T00:00:00Z") -> String {
        "<Trackpoint><Time>\(time)</Time><Position><LatitudeDegrees>\(lat)</LatitudeDegrees>"
            + "<LongitudeDegrees>\(lon)</LongitudeDegrees></Position></Trackpoint>\n"
    }

    static let cases: [(name: String, content: String, message: String)] = [
        (
            "deep.kml", kml + String(repeating: "<Folder>", count: 300) + String(repeating: "</Folder>", count: 300),
            "deep.kml:2: elements nested deeper than 256 levels"
        ),
        (
            "nan.kml", kml + good + line("NaN,52.2") + "</Document></kml>",
            "nan.kml:3: coordinates of placemark 'Ride' 'NaN,52.2' is not valid"
        ),
        (
            "huge.kml", kml + good + line("5.2,1e400") + "</Document></kml>",
            "huge.kml:3: coordinates of placemark 'Ride' '5.2,1e400'"
        ),
        (
            "latitude.kml", kml + good + line("5.2,91") + "</Document></kml>",
            "latitude.kml:3: coordinates of placemark 'Ride' '5.2,91'"
        ),
        (
            "tuple.kml", kml + good + line(String(repeating: "1", count: 200_000)) + "</Document></kml>",
            "tuple.kml:3: coordinates of placemark 'Ride' '(a tuple over 128 bytes)'"
        ),
        (
            "truncated.kml", kml + good + "<Placemark><name>Ride</name><LineString><coordinates>5.1,52.1 5.2,5",
            "truncated.kml:3"
        ),
        (
            "pairs.kml",
            kml + good + "<Placemark><name>Ride</name><gx:Track><when>2024-01-01T00:00:01Z</when>\n"
                + "<when>2024-01-01T00:00:02Z</when><gx:coord>5.1 52.1 0</gx:coord></gx:Track></Placemark></Document></kml>",
            "pairs.kml:4: the gx:Track of placemark 'Ride' has 1 more <when> than <gx:coord>"
        ),
        (
            "coord.kml",
            kml + good + "<Placemark><name>Ride</name><gx:Track><when>2024-01-01T00:00:01Z</when>\n"
                + "<gx:coord>5.1 Infinity</gx:coord></gx:Track></Placemark></Document></kml>",
            "coord.kml:4: gx:coord of placemark 'Ride' '5.1 Infinity' is not valid"
        ),
        (
            "future.kml",
            kml + good + "<Placemark><name>Mark</name><TimeStamp>\n<when>2999-01-01T00:00:00Z</when></TimeStamp>"
                + "<Point><coordinates>5.1,52.1</coordinates></Point></Placemark></Document></kml>",
            "future.kml:4: when of placemark 'Mark' '2999-01-01T00:00:00Z' is not valid"
        ),
        (
            "span.kml",
            kml + good + "<Placemark><name>Ride</name><TimeSpan><begin>2024-01-02T00:00:00Z</begin>"
                + "<end>2024-01-01T00:00:00Z</end></TimeSpan>\n<LineString><coordinates>5.1,52.1 5.2,52.2</coordinates>"
                + "</LineString></Placemark></Document></kml>",
            "span.kml:4: TimeSpan of placemark 'Ride' '2024-01-02T00:00:00Z to 2024-01-01T00:00:00Z'"
        ),
        (
            "gdal.kml",
            kml + "<Placemark><ExtendedData><SchemaData>\n<SimpleData name=\"time\">yesterday</SimpleData>"
                + "</SchemaData></ExtendedData><Point><coordinates>5.1,52.1</coordinates></Point></Placemark></Document></kml>",
            "gdal.kml:3: ExtendedData 'time' 'yesterday' is not valid"
        ),
        (
            "xxe.kml",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE kml [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
                + "<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Placemark><name>&xxe;</name></Placemark></kml>",
            "DTDs and entities are not accepted"
        ),
        (
            "latitude.tcx",
            tcx + trackpoint() + trackpoint(lat: "91")
                + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>",
            "latitude.tcx:3: LatitudeDegrees '91' is not valid"
        ),
        (
            "nan.tcx",
            tcx + trackpoint() + trackpoint(lon: "nan")
                + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>",
            "nan.tcx:3: LongitudeDegrees 'nan' is not valid"
        ),
        (
            "time.tcx",
            tcx + trackpoint() + trackpoint(time: "2024-13-01T00:00:00Z")
                + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>",
            "time.tcx:3: Time '2024-13-01T00:00:00Z' is not valid"
        ),
        (
            "truncated.tcx", tcx + trackpoint() + "<Trackpoint><Time>2024-01-01T00:00:01Z</Time><Position><Lati",
            "truncated.tcx:3"
        ),
        (
            "deep.tcx", tcx + String(repeating: "<Trackpoint>", count: 300),
            "deep.tcx:2: elements nested deeper than 256 levels"
        ),
    ]

    @Test(arguments: cases.indices)
    func hostileFileFailsCleanly(index: Int) throws {
        let c = Self.cases[index]
        try withTemporaryDirectory { dir in
            let path = dir + "/" + c.name
            try c.content.write(toFile: path, atomically: true, encoding: .utf8)
            try Self.expectRefusal(path, naming: c.message)
        }
    }

    /// Imports `path` into a fresh store: refused with `message` and the file's name, nothing left behind.
    static func expectRefusal(_ path: String, naming message: String) throws {
        try withTemporaryStore { store, _ in
            let error = #expect(throws: ImportError.self) { _ = try FileImporter().importFile(path, into: store) }
            let text = error?.errorDescription ?? ""
            #expect(text.contains(path), "\(text)")
            #expect(text.contains(message), "\(text)")
            #expect(text.hasSuffix("nothing was imported."), "\(text)")
            let sessions = try store.sessions()
            let entries = try store.database.scalar("SELECT COUNT(*) FROM Entries")?.int64
            #expect(sessions.isEmpty && entries == 0)
        }
    }

    /// Runs a Python script (the zip files are made with Python's `zipfile`, not with the reader under test).
    static func python(_ script: String, _ arguments: [String]) throws {
        #expect(try runTool("/usr/bin/python3", ["-c", script] + arguments).status == 0)
    }

    static let zipKML = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n"

    /// A zip bomb (100 MB of spaces in a 100 KB entry) is refused before anything is read; a zip whose header
    /// says its entry is small when it inflates to 20 MB is refused when the bytes pass the size declared; a file
    /// that starts as a zip and is not one, a zip without a KML, a KMZ whose KML is bad (named inside the zip):
    /// each refused, nothing imported.
    @Test func kmzBombsAndBrokenZipsAreRefused() throws {
        try withTemporaryDirectory { dir in
            let bomb = dir + "/bomb.kmz"
            try Self.python(
                Self.zipKML + "z.writestr('doc.kml', '<kml>' + ' ' * 100_000_000 + '</kml>'); z.close()", [bomb])
            try Self.expectRefusal(bomb, naming: "bomb.kmz (doc.kml): would inflate")
            try Self.expectRefusal(bomb, naming: "a zip bomb, not KML")

            let liar = dir + "/liar.kmz"
            try Self.python(
                Self.zipKML + """
                    z.writestr('doc.kml', '<kml><Document>' + '<!-- -->' * 2_500_000 + '</Document></kml>'); z.close()
                    data = bytearray(open(sys.argv[1], 'rb').read())
                    import struct
                    local = data.find(b'PK\\x03\\x04'); central = data.find(b'PK\\x01\\x02')
                    struct.pack_into('<I', data, local + 22, 1000); struct.pack_into('<I', data, central + 24, 1000)
                    open(sys.argv[1], 'wb').write(data)
                    """, [liar])
            try Self.expectRefusal(liar, naming: "liar.kmz (doc.kml): inflates past the 1000 bytes its header declares")

            let notZip = dir + "/truncated.kmz"
            try Data([0x50, 0x4B, 0x03, 0x04] + Array(repeating: 0x41, count: 100)).write(
                to: URL(fileURLWithPath: notZip))
            try Self.expectRefusal(notZip, naming: "not a zip archive that can be read")

            let noKML = dir + "/photos.kmz"
            try Self.python(Self.zipKML + "z.writestr('a.jpg', 'not a KML'); z.close()", [noKML])
            try Self.expectRefusal(noKML, naming: "a zip archive without a .kml document")

            let bad = dir + "/bad.kmz"
            try Self.python(
                Self.zipKML + "z.writestr('tour.kml', sys.argv[2]); z.close()",
                [bad, Self.kml + Self.good + Self.line("5.2,95") + "</Document></kml>"])
            try Self.expectRefusal(bad, naming: "bad.kmz (tour.kml):3: coordinates of placemark 'Ride' '5.2,95'")
        }
    }

    /// The limits are what `KMZArchive` checks (a real 4 GiB document is not made here): a smaller size limit
    /// refuses the sample's KMZ with the limit in the words.
    @Test func kmzOverTheSizeLimitIsRefused() throws {
        try withTemporaryDirectory { dir in
            let kmz = dir + "/sample.kmz"
            try Self.python(
                Self.zipKML + "z.write(sys.argv[2], 'doc.kml'); z.close()",
                [
                    kmz, TestPaths.packageRoot + "/Exports/sample.kml",
                ])
            var limits = KMZArchive.Limits()
            limits.maxBytes = 1 << 10
            let error = #expect(throws: ImportError.self) { _ = try KMZArchive(path: kmz, limits: limits) }
            #expect(error?.errorDescription?.contains("sample.kmz (doc.kml): would inflate to") == true)
            #expect(try KMZArchive(path: kmz).displayName == kmz + " (doc.kml)")
        }
    }
}
