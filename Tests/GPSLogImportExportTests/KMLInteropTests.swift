// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// What GPSBabel (KML, KML with `gx:Track`, TCX) and GDAL (KML of the tracks and of the track points) write from the
/// real GPX files in `../shared/data/gpx` imports with the points the GPX itself imports with: the same count, the
/// same coordinates to 1e-6 (GPSBabel writes six decimals), the same marks where the format carries them.
@Suite(
    .ownThreads,
    .enabled(
        if: TestPaths.hasSharedData && FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ogr2ogr"),
        "needs ../shared/data, gpsbabel and gdal-bin"))
struct KMLInteropTests {
    /// Converts `file` with a tool into `output` and says whether it worked.
    static func convert(_ tool: String, _ arguments: [String]) throws -> Bool {
        try runTool(tool, arguments).status == 0
    }

    @Test(arguments: InteropImportTests.files)
    func gpsbabelAndGDALKMLImportAsTheGPXDoes(file: String) throws {
        let name = (file as NSString).lastPathComponent
        let all = try InteropImportTests.points(file, options: TrackImportOptions(routes: true))
        let tracks = (try? InteropImportTests.points(file).track) ?? []
        try withTemporaryDirectory { dir in
            // GPSBabel's KML, plain (each track as a Points folder and a Path line) and with -o kml,track=1
            // (gx:Track): tracks, waypoints as marks, routes only with --routes.
            for (label, format) in [("kml", "kml"), ("gx:Track", "kml,track=1")] {
                let kml = dir + "/gpsbabel-\(label == "kml" ? "plain" : "gx").kml"
                #expect(try Self.convert("/usr/bin/gpsbabel", ["-i", "gpx", "-f", file, "-o", format, "-F", kml]))
                let withRoutes = try InteropImportTests.points(kml, options: TrackImportOptions(routes: true))
                #expect(InteropImportTests.same(withRoutes.track, all.track), "\(name): GPSBabel \(label), routes")
                #expect(InteropImportTests.same(withRoutes.marks, all.marks), "\(name): GPSBabel \(label) marks")
                if tracks.isEmpty && all.marks.isEmpty {
                    #expect(throws: ImportError.self) { _ = try InteropImportTests.points(kml) }
                } else {
                    let plain = try InteropImportTests.points(kml)
                    #expect(InteropImportTests.same(plain.track, tracks), "\(name): GPSBabel \(label)")
                }
            }
            guard !tracks.isEmpty else { return }
            // GDAL's KML of the tracks layer (untimed lines, one LineString per segment) and of the track points
            // (Point placemarks with ExtendedData time, track_fid, track_seg_id).
            for layer in ["tracks", "track_points"] {
                let kml = dir + "/gdal-\(layer).kml"
                #expect(try Self.convert("/usr/bin/ogr2ogr", ["-f", "KML", kml, file, layer]))
                let fromGDAL = try InteropImportTests.points(kml)
                #expect(InteropImportTests.same(fromGDAL.track, tracks), "\(name): GDAL KML \(layer)")
                #expect(fromGDAL.marks.isEmpty)
            }
            // GPSBabel's TCX (Training Center v2): the tracks as activities (no waypoints, no routes).
            let tcx = dir + "/gpsbabel.tcx"
            #expect(try Self.convert("/usr/bin/gpsbabel", ["-t", "-i", "gpx", "-f", file, "-o", "gtrnctr", "-F", tcx]))
            #expect(try ImportFormat.detect(path: tcx) == .tcx)
            #expect(InteropImportTests.same(try InteropImportTests.points(tcx).track, tracks), "\(name): GPSBabel TCX")
        }
    }

    /// GDAL's track points keep their times (its `ExtendedData` `time`, `2010/10/03 09:36:30+00`) and altitudes:
    /// the sessions are those of the GPX, to the millisecond.
    @Test func gdalTrackPointsKeepTheirTimes() throws {
        let file = TestPaths.sharedData + "/gpx/gpxpy_korita-zbevnica.gpx"
        try withTemporaryDirectory { dir in
            let kml = dir + "/points.kml"
            #expect(try Self.convert("/usr/bin/ogr2ogr", ["-f", "KML", kml, file, "track_points"]))
            let fromGPX = try KMLImportTests.imported(file)
            let fromKML = try KMLImportTests.imported(kml)
            // The GPX's first track has no time (dated by the file): the timed ones match exactly.
            let timed = { (s: [(session: Session, entries: [Entry])]) in Array(s.dropFirst()) }
            #expect(timed(fromKML).map { $0.entries.map(\.time) } == timed(fromGPX).map { $0.entries.map(\.time) })
            #expect(timed(fromKML).map(\.session.start) == timed(fromGPX).map(\.session.start))
            #expect(
                timed(fromKML).map { $0.entries.compactMap(\.altitude).count }
                    == timed(fromGPX).map { $0.entries.compactMap(\.altitude).count })
        }
    }
}
