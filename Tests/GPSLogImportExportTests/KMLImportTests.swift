// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// KML as gpslog writes it comes back as it was; KML as Google Earth, GPSBabel and GDAL write it imports; a KMZ is
/// read through its zip.
@Suite(.ownThreads)
struct KMLImportTests {
    static let head =
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        + #"<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">"#

    /// Every entry of every session `path` imports as, with the sessions.
    static func imported(_ path: String, options: TrackImportOptions = TrackImportOptions()) throws -> [(
        session: Session, entries: [Entry]
    )] {
        try withTemporaryStore { store, _ in
            var importer = FileImporter()
            importer.options = options
            return try importer.importFile(path, into: store).map { result in
                var entries: [Entry] = []
                try store.entries(of: result.session.id).forEach { entries.append($0) }
                return (try store.session(id: result.session.id)!, entries)
            }
        }
    }

    static func write(_ text: String, _ name: String, in dir: String) throws -> String {
        let path = dir + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Export, import into a fresh database, export again: the same bytes. The track points keep their positions
    /// and altitudes, the first and last their times (the span's ends), the marks everything the export writes.
    @Test func exportImportExportGivesTheSameFile() throws {
        try withTemporaryDirectory { dir in
            for sub in ["/a", "/b"] {
                try FileManager.default.createDirectory(atPath: dir + sub, withIntermediateDirectories: true)
            }
            var original: Session!
            var originalEntries: [Entry] = []
            let first = try withTemporaryStore { store, _ in
                original = try ExportFixtures.makeSampleSession(in: store)
                try store.entries(of: original.id).forEach { if !$0.isHeadingChanged { originalEntries.append($0) } }
                return try ExportFixtures.export(.kml, store: store, session: original, dir: dir + "/a")
            }
            #expect(try ImportFormat.detect(path: first) == .kml)
            try withTemporaryStore { store, _ in
                let results = try FileImporter().importFile(first, into: store)
                #expect(results.count == 1)
                let session = try #require(try store.session(id: results[0].session.id))
                #expect(session.name == original.name && session.start == original.start && session.end == original.end)
                var back: [Entry] = []
                try store.entries(of: session.id).forEach { back.append($0) }
                let track = { (entries: [Entry]) in entries.filter { !$0.marked } }
                #expect(track(back).count == track(originalEntries).count)
                for (a, b) in zip(track(originalEntries), track(back)) {
                    #expect(abs(a.latitude - b.latitude) < 1e-7 && abs(a.longitude - b.longitude) < 1e-7)
                    // The export writes 0 for a point without one in a track with altitudes (absolute: kept).
                    #expect(b.altitude == (a.altitude ?? 0))
                }
                #expect(track(back).first?.time == original.start && track(back).last?.time == original.end)
                let marks = back.filter(\.marked)
                #expect(marks.count == 1)
                #expect(marks.first?.label == ExportFixtures.markLabel)
                #expect(marks.first?.address == ExportFixtures.markAddress)
                #expect(marks.first?.time == originalEntries.first(where: \.marked)?.time)
                let second = try ExportFixtures.export(.kml, store: store, session: session, dir: dir + "/b")
                #expect(
                    try String(contentsOfFile: first, encoding: .utf8)
                        == String(contentsOfFile: second, encoding: .utf8))
            }
        }
    }

    /// A LineString with a TimeSpan: its points evenly spaced from begin to end; a MultiGeometry's second line is a
    /// segment; the Point placemark after the line in its folder is a mark.
    @Test func lineStringTimeSpanIsSpacedEvenly() throws {
        try withTemporaryDirectory { dir in
            let path = try Self.write(
                Self.head + """
                    <Document><Folder><name>Sail</name><Placemark><name>Sail</name>
                    <TimeSpan><begin>2024-01-01T10:00:00Z</begin><end>2024-01-01T10:00:30Z</end></TimeSpan>
                    <MultiGeometry><LineString><coordinates>5.1,52.1 5.2,52.2</coordinates></LineString>
                    <LineString><coordinates>5.3,52.3,7 5.4,52.4,8</coordinates></LineString></MultiGeometry></Placemark>
                    <Placemark><name>Buoy</name><TimeStamp><when>2024-01-01T10:00:05Z</when></TimeStamp>
                    <Point><coordinates>5.15,52.15</coordinates></Point></Placemark></Folder></Document></kml>
                    """, "span.kml", in: dir)
            let sessions = try Self.imported(path)
            #expect(sessions.count == 1 && sessions[0].session.name == "Sail")
            let track = sessions[0].entries.filter { !$0.marked }
            #expect(track.map(\.time.milliseconds) == [0, 10_000, 20_000, 30_000].map { 1_704_103_200_000 + $0 })
            #expect(track.map(\.startsSegment) == [false, false, true, false])
            #expect(track.map(\.altitude) == [nil, nil, 7, 8])
            let mark = try #require(sessions[0].entries.first { $0.marked })
            #expect(mark.label == "Buoy" && mark.latitude == 52.15)
        }
    }

    /// `gx:Track` pairs `when` with `gx:coord` in order, whether the times come first (Google Earth, GPSBabel) or
    /// alternate; a `gx:MultiTrack`'s second track is a segment; two placemarks are two sessions named after them.
    @Test func gxTrackPairsTimesAndCoordinates() throws {
        try withTemporaryDirectory { dir in
            let times = (0..<3).map { "<when>2024-02-01T08:00:0\($0)Z</when>" }
            let later = (0..<3).map { "<when>2024-02-01T08:01:0\($0)Z</when>" }
            let coords = (0..<3).map { "<gx:coord>5.\($0) 52.\($0) 1\($0)</gx:coord>" }
            let path = try Self.write(
                Self.head + """
                    <Document><Placemark><name>Ride</name><gx:MultiTrack><gx:Track><altitudeMode>absolute</altitudeMode>
                    \(times.joined())\(coords.joined())</gx:Track>
                    <gx:Track>\(zip(later, coords).map { $0 + $1 }.joined())</gx:Track></gx:MultiTrack></Placemark>
                    <Placemark><name>Walk</name><gx:Track>\(times[0])\(coords[1])</gx:Track></Placemark>
                    </Document></kml>
                    """, "gx.kml", in: dir)
            let sessions = try Self.imported(path)
            #expect(sessions.map(\.session.name) == ["Ride", "Walk"])
            let ride = sessions[0].entries
            #expect(ride.count == 6)
            #expect(ride.map(\.latitude) == [52.0, 52.1, 52.2, 52.0, 52.1, 52.2])
            #expect(ride.map(\.altitude) == [10, 11, 12, 10, 11, 12])
            #expect(ride.map(\.startsSegment) == [false, false, false, true, false, false])
            #expect(ride[2].time == Timestamp(iso8601: "2024-02-01T08:00:02Z"))
            #expect(sessions[1].entries.map(\.latitude) == [52.1])
        }
    }

    /// Timed Point placemarks are a track, one per folder, in nested Folders and Documents; untimed ones are marks;
    /// `--merge` makes one session with a segment per track; `--name` numbers the sessions.
    @Test func pointPlacemarksInNestedFoldersAndMerge() throws {
        func point(_ minute: Int, _ lat: Double, time: Bool = true) -> String {
            let when = time ? "<TimeStamp><when>2024-03-01T09:0\(minute):00Z</when></TimeStamp>" : ""
            return "<Placemark>\(when)<Point><coordinates>5.1,\(lat)</coordinates></Point></Placemark>"
        }
        try withTemporaryDirectory { dir in
            let path = try Self.write(
                Self.head + """
                    <Document><name>Days</name><Folder><name>Monday</name><Document><name>Morning</name>
                    \(point(0, 52.0))\(point(1, 52.1))</Document>
                    <Placemark><name>Cafe</name><Point><coordinates>5.2,52.2</coordinates></Point></Placemark></Folder>
                    <Folder><name>Tuesday</name>\(point(5, 52.5))\(point(6, 52.6))</Folder></Document></kml>
                    """, "days.kml", in: dir)
            let split = try Self.imported(path, options: TrackImportOptions(name: "Walk"))
            #expect(split.map(\.session.name) == ["Walk (1)", "Walk (2)"])
            #expect(split.map { $0.entries.filter { !$0.marked }.count } == [2, 2])
            #expect(split[0].entries.filter(\.marked).map(\.label) == ["Cafe"])
            let merged = try Self.imported(path, options: TrackImportOptions(merge: true))
            #expect(merged.count == 1 && merged[0].session.name == "days")
            #expect(merged[0].entries.filter { !$0.marked }.map(\.startsSegment) == [false, false, true, false])
        }
    }

    /// A KMZ made by zipping a KML imports as the KML; the dry run reads it into no database.
    @Test func kmzImportsAsItsKMLAndDryRuns() throws {
        try withTemporaryDirectory { dir in
            let kml = TestPaths.packageRoot + "/Exports/sample.kml"
            let kmz = dir + "/sample.kmz"
            let zipped = try runTool(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sys, zipfile; z = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED); "
                        + "z.writestr('images/readme.txt', 'not the document'); z.write(sys.argv[1], 'doc.kml'); z.close()",
                    kml, kmz,
                ])
            #expect(zipped.status == 0)
            #expect(try ImportFormat.detect(path: kmz) == .kmz)
            let fromKML = try Self.imported(kml)
            let fromKMZ = try Self.imported(kmz)
            #expect(fromKMZ.count == 1 && fromKMZ[0].session.name == fromKML[0].session.name)
            #expect(fromKMZ[0].entries.map(\.latitude) == fromKML[0].entries.map(\.latitude))
            #expect(fromKMZ[0].entries.map(\.time) == fromKML[0].entries.map(\.time))
            let planned = try FileImporter().dryRun(kmz)
            #expect(planned.count == 1)
            #expect(planned.first?.points == fromKML[0].entries.filter { !$0.marked }.count)
            #expect(planned.first?.marks == 1)
        }
    }

    /// What GPSBabel writes: its Waypoints are marks (timed or not), each track's `Points` folder is the track (its
    /// `Path` line, the same points, is skipped), its Routes come only with `--routes`.
    @Test func gpsbabelLayoutReadsEachPointOnce() throws {
        let seed = TestPaths.packageRoot + "/Tests/Fixtures/fuzz/kml/seeds/gpsbabel-layout.kml"
        var notes: [String] = []
        var options = TrackImportOptions()
        options.notes = { notes.append($0) }
        let sessions = try Self.imported(seed, options: options)
        #expect(sessions.map(\.session.name) == ["Hwy 119 to Hwy 72"])
        let track = sessions[0].entries.filter { !$0.marked }
        #expect(track.map(\.latitude) == [39.973870, 40.003967])
        #expect(track.map(\.altitude) == [2400.5, nil])
        #expect(sessions[0].entries.filter(\.marked).map(\.label) == ["Hwy 119"])
        #expect(notes.contains { $0.hasPrefix("skipped 1 route (1 point) (") }, "\(notes)")
        let withRoutes = try Self.imported(seed, options: TrackImportOptions(routes: true))
        #expect(withRoutes.map(\.session.name) == ["Hwy 119 to Hwy 72", "Plan"])
    }
}
