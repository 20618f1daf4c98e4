// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog plot`: the sample's picture is kept in `Exports/sample.plot.svg` and made again byte for byte (run with
/// GPSLOG_UPDATE_EXPORTS=1 to rewrite it after a deliberate change); a real SVG renderer draws it, and the CLI
/// writes PNG through it.
@Suite(.ownThreads)
struct GoldenPlotTests {
    static let golden = TestPaths.packageRoot + "/Exports/sample.plot.svg"

    static func plot(_ store: Store, _ session: GPSLogModel.Session, to path: String) throws {
        try SVGPlotWriter(panels: [.speed, .elevation]).write(
            [try SessionExport(store: store, session: session, simplify: nil)], to: TrackOutputs(path: path))
    }

    @Test func theSamplePlotsExactlyAsInExports() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                let path = dir + "/plot.svg"
                try Self.plot(store, session, to: path)
                let produced = try Data(contentsOf: URL(fileURLWithPath: path))
                if GoldenExportTests.update { try produced.write(to: URL(fileURLWithPath: Self.golden)) }
                #expect(produced == (try Data(contentsOf: URL(fileURLWithPath: Self.golden))), "differs from Exports/")
                #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
                let text = String(decoding: produced, as: UTF8.self)
                // Paths: the track (one segment), the scale bar, the north arrow, the two panels; then the mark
                // with its label escaped.
                #expect(text.components(separatedBy: "<path d=\"M").count - 1 == 5)
                #expect(text.contains("Buoy &lt;7&gt; &amp; &quot;Kaap&quot; 🚤"))
                #expect(text.contains("<g id=\"speed\">") && text.contains("<g id=\"elevation\">"))
                #expect(text.contains(">50 m</text>"))
                #expect(text.contains("427 m, 147 points, 1 mark"))
            }
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert"), "needs librsvg2-bin"))
    func aRealRendererDrawsItAndTheCLIWritesPNG() throws {
        try withTemporaryStore { store, dbPath in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                let png = dir + "/sample.png"
                let r = try runGPSLog(
                    ["plot", session.name, "-o", png, "--panels", "speed,elevation"], database: dbPath)
                #expect(r.status == 0, "\(r.stderr)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
                // 800 px wide, as the SVG says (IHDR: width at bytes 16-19).
                #expect(bytes.count > 20_000 && bytes[16..<20].elementsEqual([0, 0, 0x03, 0x20]))
                #expect((try FileManager.default.attributesOfItem(atPath: png)[.posixPermissions] as? Int) == 0o600)
                #expect((try FileManager.default.contentsOfDirectory(atPath: dir)) == ["sample.png"], "no leftovers")

                // Without rsvg-convert on the PATH: a clear error, and no file.
                let none = try runGPSLog(
                    ["plot", session.name, "-o", dir + "/none.png"], database: dbPath,
                    environment: ["PATH": "/nonexistent"])
                #expect(none.status != 0 && none.stderr.contains("rsvg-convert"), "\(none.stderr)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/none.png"))
            }
        }
    }
}
