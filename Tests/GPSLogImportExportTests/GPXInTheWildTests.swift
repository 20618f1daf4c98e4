// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// GPX as programs and people write it, which GPSBabel and GDAL read: gpslog reads it too, and says what it did.
@Suite(.ownThreads)
struct GPXInTheWildTests {
    /// A real file (a Garmin GPSMAP 64s track, two segments, 3,540 points; MIT, see Tests/Fixtures/tracks).
    static let real = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    struct Imported {
        var names: [String]
        var entries: [Entry]
        var notes: [String]
    }

    /// Imports `path` into a fresh store: the sessions' names, all their entries in order, and the notes said.
    static func run(_ path: String, _ configure: (inout TrackImportOptions) -> Void = { _ in }) throws -> Imported {
        final class Notes: @unchecked Sendable { var list: [String] = [] }  // one thread: the import's
        let notes = Notes()
        var importer = FileImporter()
        configure(&importer.options)
        importer.options.notes = { notes.list.append($0) }
        return try withTemporaryStore { store, _ in
            let results = try importer.importFile(path, into: store)
            var entries: [Entry] = []
            for r in results { try store.entries(of: r.session.id).forEach { entries.append($0) } }
            return Imported(names: results.map(\.session.name), entries: entries, notes: notes.list)
        }
    }

    /// What the store keeps of a point that the file says.
    static func sameContent(_ a: [Entry], _ b: [Entry]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy {
                $0.latitude == $1.latitude && $0.longitude == $1.longitude && $0.time == $1.time
                    && $0.altitude == $1.altitude && $0.startsSegment == $1.startsSegment && $0.marked == $1.marked
            }
    }

    enum Variant: String, CaseIterable {
        case noNamespace, httpsNamespace, byteOrderMark, utf16LittleEndian, utf16BigEndian, blankLinesFirst
    }

    /// The real file made into what other programs write imports exactly as the original does.
    @Test(arguments: Variant.allCases)
    func aRealFileWrittenDifferentlyImportsTheSame(variant: Variant) throws {
        let original = try String(contentsOfFile: Self.real, encoding: .utf8)
        let ns = #" xmlns="http://www.topografix.com/GPX/1/1""#
        #expect(original.contains(ns))
        let utf16 = original.replacingOccurrences(of: #"encoding="UTF-8""#, with: #"encoding="UTF-16""#)
        let bytes: [UInt8]
        switch variant {
        case .noNamespace: bytes = Array(original.replacingOccurrences(of: ns, with: "").utf8)
        case .httpsNamespace:
            bytes = Array(
                original.replacingOccurrences(of: ns, with: ns.replacingOccurrences(of: "http", with: "https")).utf8)
        case .byteOrderMark: bytes = [0xEF, 0xBB, 0xBF] + Array(original.utf8)
        case .utf16LittleEndian: bytes = [0xFF, 0xFE] + utf16.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case .utf16BigEndian: bytes = [0xFE, 0xFF] + utf16.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .blankLinesFirst: bytes = Array(("\n\n  \r\n" + original).utf8)
        }
        let expected = try Self.run(Self.real)
        #expect(expected.entries.count == 3540 && expected.entries.filter(\.startsSegment).count == 1)
        try withTemporaryDirectory { dir in
            let path = dir + "/variant.gpx"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try ImportFormat.detect(path: path) == .gpx)
            let got = try Self.run(path)
            #expect(got.names == expected.names)
            #expect(Self.sameContent(got.entries, expected.entries))
            switch variant {
            case .noNamespace: #expect(got.notes == ["the root <gpx> has no namespace; read as GPX"])
            case .httpsNamespace: #expect(got.notes.first?.contains("'https://www.topografix.com/GPX/1/1'") == true)
            default: #expect(got.notes.isEmpty)
            }
        }
    }

    /// Lines skipped before the XML declaration still count in the line an error names.
    @Test func anErrorAfterBlankLinesNamesTheLineInTheFile() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/bad.gpx"
            let text =
                "\n\n<?xml version=\"1.0\"?>\n<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" version=\"1.1\">\n"
                + "<trk><trkseg>\n<trkpt lat=\"95\" lon=\"5\"/>\n</trkseg></trk></gpx>\n"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: ImportError.self) { _ = try Self.run(path) }
            #expect(
                error?.errorDescription?.contains("bad.gpx:6: latitude '95'") == true, "\(String(describing: error))")
        }
    }

    static func gpx(_ body: String, extraNamespaces: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1" \(extraNamespaces)>
        \(body)
        </gpx>
        """
    }

    /// Strava's and Garmin's extensions (heart rate, cadence, temperature, power) are counted and dropped; OsmAnd's
    /// speed and heading are kept (as speed and course); Cluetrust's gpxdata is counted too.
    @Test func extensionsAreKeptWhereThereIsAColumnElseCounted() throws {
        let text = Self.gpx(
            """
            <trk><name>Ride</name><type>cycling</type><trkseg>
            <trkpt lat="52.1" lon="5.1"><ele>1</ele><time>2024-05-01T08:00:00Z</time><extensions><power>210</power>
              <gpxtpx:TrackPointExtension><gpxtpx:atemp>19</gpxtpx:atemp><gpxtpx:hr>140</gpxtpx:hr><gpxtpx:cad>88</gpxtpx:cad>
              </gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="52.2" lon="5.2"><time>2024-05-01T08:00:01Z</time><extensions><osmand:speed>3.5</osmand:speed>
              <osmand:heading>270</osmand:heading></extensions></trkpt>
            <trkpt lat="52.3" lon="5.3"><time>2024-05-01T08:00:02Z</time><extensions><gpxdata:hr>141</gpxdata:hr>
              <gpxdata:cadence>90</gpxdata:cadence><gpxdata:temp>20</gpxdata:temp></extensions></trkpt>
            </trkseg></trk>
            """,
            extraNamespaces: #"xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" "#
                + #"xmlns:osmand="https://osmand.net" xmlns:gpxdata="http://www.cluetrust.com/XML/GPXDATA/1/0""#)
        try withTemporaryDirectory { dir in
            let path = dir + "/ride.gpx"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let got = try Self.run(path)
            #expect(got.entries.count == 3)
            #expect(got.entries[1].speed == 3.5 && got.entries[1].course == 270)
            #expect(
                got.notes == [
                    "dropped 2 heart rate, 2 cadence, 2 temperature, 1 power values (gpslog has no column for them)"
                ])
        }
    }

    static let tracksAndRoute = gpx(
        """
        <wpt lat="52.0" lon="5.0"><name>Start</name></wpt>
        <rte><name>Plan</name><rtept lat="52.5" lon="5.5"/><rtept lat="52.6" lon="5.6"/><rtept lat="52.7" lon="5.7"/></rte>
        <trk><trkseg><trkpt lat="52.1" lon="5.1"><time>2024-05-01T08:00:00Z</time></trkpt>
          <trkpt lat="52.2" lon="5.2"><time>2024-05-01T08:01:00Z</time></trkpt></trkseg></trk>
        <trk><trkseg><trkpt lat="52.3" lon="5.3"><time>2024-05-01T09:00:00Z</time></trkpt>
          <trkpt lat="52.4" lon="5.4"><time>2024-05-01T09:01:00Z</time></trkpt></trkseg></trk>
        """)

    /// Routes: skipped and reported without --routes, a session of untimed points with it. Several tracks: a
    /// session each, numbered when they share a name; with --merge one session, a segment per track.
    @Test func routesAndSeveralTracks() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/day.gpx"
            try Self.tracksAndRoute.write(toFile: path, atomically: true, encoding: .utf8)

            let plain = try Self.run(path)
            #expect(plain.names == ["day (1)", "day (2)"])
            #expect(plain.notes == ["skipped 1 route (3 points); --routes imports each as a session"])
            #expect(plain.entries.filter(\.marked).map(\.label) == ["Start"])

            let named = try Self.run(path) { $0.name = "X" }
            #expect(named.names == ["X (1)", "X (2)"])

            let routes = try Self.run(path) { $0.routes = true }
            #expect(routes.names == ["Plan", "day (1)", "day (2)"])
            #expect(routes.entries.filter { !$0.marked }.count == 7)

            let merged = try Self.run(path) { $0.merge = true }
            #expect(merged.names == ["day"])
            #expect(merged.entries.filter { !$0.marked }.map(\.startsSegment) == [false, false, true, false])
            #expect(merged.entries.filter(\.marked).count == 1)

            let one = try Self.run(Self.real) { $0.name = "X" }
            #expect(one.names == ["X"])  // a single track takes the name as it is

            // One point says so in the singular.
            let single = dir + "/single.gpx"
            try Self.tracksAndRoute.replacingOccurrences(
                of: #"<rtept lat="52.6" lon="5.6"/><rtept lat="52.7" lon="5.7"/>"#, with: ""
            ).write(toFile: single, atomically: true, encoding: .utf8)
            #expect(try Self.run(single).notes == ["skipped 1 route (1 point); --routes imports each as a session"])
        }
    }
}
