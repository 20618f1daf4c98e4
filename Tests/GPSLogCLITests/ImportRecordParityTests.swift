// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// One NMEA log, two ways in: `import` and `record` from a replay of it keep the same fixes.
@Suite(.ownThreads)
struct ImportRecordParityTests {
    /// The Haicom HI-305N log of gpsd's test suite: a 1 Hz receiver whose fixes drift to 994 ms apart. `import`
    /// kept 65 entries and `record` (one per second) 53: every fix that came a few milliseconds early was dropped.
    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func aDriftingOneHertzLogGivesTheSameEntriesThroughImportAndRecord() throws {
        let log = TestPaths.sharedData + "/nmea/haicom-305N.log"
        try withTemporaryDirectory { dir in
            let imported = dir + "/imported.sqlite"
            let recorded = dir + "/recorded.sqlite"
            let i = try runGPSLog(["import", log, "--name", "Haicom"], database: imported)
            #expect(i.status == 0, "\(i.stderr)")
            let r = try runGPSLog(
                ["record", "--name", "Haicom", "--source", "replay:\(log)?speed=0", "--geocode", "off"],
                database: recorded)
            #expect(r.status == 0, "\(r.stderr)")
            let a = try Self.rows(database: imported)
            let b = try Self.rows(database: recorded)
            #expect(a.count == 65, "\(i.stdout)")
            #expect(a == b, "import \(a.count) entries, record \(b.count)")
        }
    }

    /// Time, position and kind of each entry, from a CSV export (ids and the session differ by design).
    private static func rows(database: String) throws -> [String] {
        let export = try runGPSLog(["export", "Haicom", "--format", "csv"], database: database)
        #expect(export.status == 0, "\(export.stderr)")
        // CSV lines end with CRLF (RFC 4180), one Character in Swift.
        return export.stdout.split(whereSeparator: \.isNewline).dropFirst().map { line in
            line.split(separator: ",", omittingEmptySubsequences: false)[2...5].joined(separator: ",")
        }
    }
}
