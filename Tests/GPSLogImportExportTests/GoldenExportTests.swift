// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `Exports/` holds the sample session in every format; these tests regenerate each file and compare bytes.
/// Run with GPSLOG_UPDATE_EXPORTS=1 to rewrite them after a deliberate change.
@Suite(.ownThreads)
struct GoldenExportTests {
    static let update = ProcessInfo.processInfo.environment["GPSLOG_UPDATE_EXPORTS"] == "1"

    @Test(arguments: ExportFormat.allCases)
    func theSampleExportsExactlyAsInExports(format: ExportFormat) throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                let path = try ExportFixtures.export(format, store: store, session: session, dir: dir)
                let produced = try Data(contentsOf: URL(fileURLWithPath: path))
                let golden = TestPaths.packageRoot + "/Exports/" + ExportFixtures.goldenName(format)
                if Self.update { try produced.write(to: URL(fileURLWithPath: golden)) }
                let expected = try Data(contentsOf: URL(fileURLWithPath: golden))
                #expect(produced == expected, "\(format) differs from Exports/\(ExportFixtures.goldenName(format))")
                #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
            }
        }
    }
}
