// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// What GPSBabel and GDAL write from the real GPX files in `../shared/data/gpx` imports with the points the GPX
/// itself imports with: the same count, the same coordinates to 1e-6 (GPSBabel's unicsv has six decimals).
@Suite(
    .ownThreads,
    .enabled(
        if: TestPaths.hasSharedData && FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ogr2ogr"),
        "needs ../shared/data, gpsbabel and gdal-bin"))
struct InteropImportTests {
    static let files: [String] = {
        let folders = [TestPaths.sharedData + "/gpx", TestPaths.sharedData + "/gpx/peers"]
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".gpx") }
                .sorted().map { folder + "/" + $0 }
        }
    }()

    /// Track points and marks of every session a file imports as (a file whose points have no time may come back
    /// in another order).
    static func points(_ path: String, options: TrackImportOptions = TrackImportOptions()) throws -> (
        track: [(Double, Double)], marks: [(Double, Double)]
    ) {
        try withTemporaryStore { store, _ in
            var importer = FileImporter()
            importer.options = options
            var track: [(Double, Double)] = []
            var marks: [(Double, Double)] = []
            for result in try importer.importFile(path, into: store) {
                try store.entries(of: result.session.id).forEach { e in
                    if e.marked {
                        marks.append((e.latitude, e.longitude))
                    } else {
                        track.append((e.latitude, e.longitude))
                    }
                }
            }
            return (track, marks)
        }
    }

    /// The same number of points, and the same latitudes and longitudes to 1e-6 whatever the order: each sorted on
    /// its own (sorting keeps a bound that holds point by point; sorting pairs would not, as rounding to six
    /// decimals can swap two points that nearly tie).
    static func same(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> Bool {
        func close(_ x: [Double], _ y: [Double]) -> Bool {
            zip(x.sorted(), y.sorted()).allSatisfy { abs($0 - $1) <= 1e-6 }
        }
        return a.count == b.count && close(a.map(\.0), b.map(\.0)) && close(a.map(\.1), b.map(\.1))
    }

    @Test(arguments: files)
    func gpsbabelAndGDALOutputImportsAsTheGPXDoes(file: String) throws {
        let name = (file as NSString).lastPathComponent
        let all = try Self.points(file, options: TrackImportOptions(routes: true))
        // The `trk` points alone (GDAL's track_points layer and GPSBabel's `-t` have no routes); none in a file of
        // routes only, which imports nothing without --routes.
        let tracks = (try? Self.points(file).track) ?? []
        try withTemporaryDirectory { dir in
            // GPSBabel's GeoJSON: tracks as LineStrings without times, waypoints as Points (it writes no routes).
            let geojson = dir + "/gpsbabel.geojson"
            #expect(
                try runTool("/usr/bin/gpsbabel", ["-i", "gpx", "-f", file, "-o", "geojson", "-F", geojson]).status == 0)
            guard !tracks.isEmpty || !all.marks.isEmpty else {
                let error = #expect(throws: ImportError.self) { _ = try Self.points(geojson) }
                #expect(error?.errorDescription?.contains("no position fixes") == true)
                return
            }
            let fromGeoJSON = try Self.points(geojson)
            #expect(Self.same(fromGeoJSON.track, tracks), "\(name): GPSBabel GeoJSON")
            #expect(Self.same(fromGeoJSON.marks, all.marks), "\(name): GPSBabel GeoJSON marks")
            guard !tracks.isEmpty else { return }
            // GDAL's track_points layer, as GeoJSON and as CSV with X and Y columns.
            let gdalJSON = dir + "/gdal.geojson"
            #expect(try runTool("/usr/bin/ogr2ogr", ["-f", "GeoJSON", gdalJSON, file, "track_points"]).status == 0)
            #expect(Self.same(try Self.points(gdalJSON).track, tracks), "\(name): GDAL GeoJSON")
            let gdalCSV = dir + "/gdal.csv"
            #expect(
                try runTool("/usr/bin/ogr2ogr", ["-f", "CSV", gdalCSV, file, "track_points", "-lco", "GEOMETRY=AS_XY"])
                    .status == 0)
            #expect(Self.same(try Self.points(gdalCSV).track, tracks), "\(name): GDAL CSV")
            // GPSBabel's unicsv of the tracks: a Date and a Time column when some point has a time.
            let unicsv = dir + "/gpsbabel.csv"
            #expect(
                try runTool("/usr/bin/gpsbabel", ["-t", "-i", "gpx", "-f", file, "-o", "unicsv,utc=0", "-F", unicsv])
                    .status == 0)
            let header = try String(contentsOfFile: unicsv, encoding: .utf8).prefix { $0 != "\n" }
            if header.contains("Time") {
                #expect(Self.same(try Self.points(unicsv).track, tracks), "\(name): GPSBabel unicsv")
            } else {
                // No point of the file has a time: refused, naming the column it looked for.
                let error = #expect(throws: ImportError.self) { _ = try Self.points(unicsv) }
                #expect(error?.errorDescription?.contains("no time column") == true)
            }
        }
    }
}
