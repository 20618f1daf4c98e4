// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// GPSBabel and GDAL, the tools people already use, read what gpslog writes: same number of points, same coordinates.
@Suite(
    .ownThreads,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ogrinfo"),
        "needs gpsbabel and gdal-bin"))
struct InteropTests {
    /// The track and marks as stored, rounded as exported.
    static func expected(_ store: Store, _ session: Session) throws -> (
        track: [(Double, Double)], marks: [(Double, Double)]
    ) {
        var track: [(Double, Double)] = []
        try store.entries(of: session.id).forEach { e in
            if !e.marked && !e.isHeadingChanged { track.append((e.latitude, e.longitude)) }
        }
        return (track, try store.marks(of: session.id).all().map { ($0.latitude, $0.longitude) })
    }

    /// Rows of GPSBabel's unicsv output as (lat, lon).
    static func gpsbabel(_ args: [String]) throws -> [(Double, Double)] {
        let (out, status) = try runTool("/usr/bin/gpsbabel", args + ["-o", "unicsv,utc=0", "-F", "-"])
        #expect(status == 0)
        let lines = out.split(whereSeparator: \.isNewline)
        guard let header = lines.first?.split(separator: ","), let la = header.firstIndex(of: "Latitude"),
            let lo = header.firstIndex(of: "Longitude")
        else { return [] }
        return lines.dropFirst().map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            return (Double(f[la])!, Double(f[lo])!)
        }
    }

    static func same(_ a: [(Double, Double)], _ b: [(Double, Double)], tolerance: Double = 1e-6) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0.0 - $1.0) <= tolerance && abs($0.1 - $1.1) <= tolerance }
    }

    /// Coordinates from ogrinfo's WKT (POINT, LINESTRING, MULTILINESTRING) as (lat, lon), in file order.
    static func ogr(_ args: [String]) throws -> [(Double, Double)] {
        let (out, status) = try runTool("/usr/bin/ogrinfo", ["-ro", "-al", "-q"] + args)
        #expect(status == 0)
        var result: [(Double, Double)] = []
        for line in out.split(whereSeparator: \.isNewline) {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("POINT") || t.hasPrefix("LINESTRING") || t.hasPrefix("MULTILINESTRING") else { continue }
            let inner = t.drop { $0 != "(" }.filter { $0 != "(" && $0 != ")" }
            for pair in inner.split(separator: ",") {
                let n = pair.split(separator: " ").compactMap { Double($0) }
                if n.count >= 2 { result.append((n[1], n[0])) }
            }
        }
        return result
    }

    @Test func gpsbabelAndGDALReadOurGPX() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                let (track, marks) = try Self.expected(store, session)
                let path = try ExportFixtures.export(.gpx, store: store, session: session, dir: dir)
                #expect(Self.same(try Self.gpsbabel(["-t", "-i", "gpx", "-f", path]), track))
                #expect(Self.same(try Self.gpsbabel(["-w", "-i", "gpx", "-f", path]), marks))
                #expect(Self.same(try Self.ogr([path, "track_points"]), track))
                #expect(Self.same(try Self.ogr([path, "waypoints"]), marks))
            }
        }
    }

    @Test func gpsbabelAndGDALReadOurGeoJSON() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                let (track, marks) = try Self.expected(store, session)
                let path = try ExportFixtures.export(.geojson, store: store, session: session, dir: dir)
                // GPSBabel reads GeoJSON lines as routes.
                #expect(Self.same(try Self.gpsbabel(["-r", "-i", "geojson", "-f", path]), track))
                #expect(Self.same(try Self.gpsbabel(["-w", "-i", "geojson", "-f", path]), marks))
                #expect(Self.same(try Self.ogr([path]), track + marks))
            }
        }
    }

    @Test func gpsbabelAndGDALReadOurKML() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                let (track, marks) = try Self.expected(store, session)
                let path = try ExportFixtures.export(.kml, store: store, session: session, dir: dir)
                #expect(Self.same(try Self.gpsbabel(["-t", "-i", "kml", "-f", path]), track))
                #expect(Self.same(try Self.gpsbabel(["-w", "-i", "kml", "-f", path]), marks))
                #expect(Self.same(try Self.ogr([path]), track + marks))
            }
        }
    }

    @Test func gpsbabelAndGDALReadOurCSV() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                var all: [(Double, Double)] = []
                try store.entries(of: session.id).forEach { all.append(($0.latitude, $0.longitude)) }
                let path = try ExportFixtures.export(.csv, store: store, session: session, dir: dir)
                #expect(Self.same(try Self.gpsbabel(["-i", "unicsv,utc=0", "-f", path]), all))
                #expect(
                    Self.same(
                        try Self.ogr(["-oo", "X_POSSIBLE_NAMES=longitude", "-oo", "Y_POSSIBLE_NAMES=latitude", path]),
                        all))
            }
        }
    }
}
