// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog sessions` listed the oldest first while the web view lists the newest first: both list the newest first
/// now, and `--oldest-first` (or `oldest-first = true` in a config file) turns the command's list round.
@Suite(.ownThreads) struct SessionsOrderTests {
    static let months = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><name>Months</name><trkseg>
        <trkpt lat="52.3700" lon="4.8900"><time>2024-02-16T18:04:00Z</time></trkpt>
        <trkpt lat="52.3800" lon="4.9000"><time>2024-05-08T15:34:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """

    @Test func sessionsListsTheNewestFirstAsTheWebViewDoes() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try Self.months.write(toFile: dir + "/months.gpx", atomically: true, encoding: .utf8)
            for arguments in [["import", "--sample"], ["import", dir + "/months.gpx"]] {
                let r = try runGPSLog(arguments, database: db)
                try #require(r.status == 0, "\(r.stderr)")
            }
            // The sample sailed in 2018, Months began in 2024.
            let table = try runGPSLog(["sessions"], database: db).stdout.split(separator: "\n")
            #expect(table.count == 3 && table[1].hasPrefix("Months") && table[2].hasPrefix("IJsselmeer"), "\(table)")
            func names(_ arguments: [String]) throws -> [String] {
                let r = try runGPSLog(["sessions", "--json"] + arguments, database: db)
                let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
                return (list ?? []).compactMap { $0["name"] as? String }
            }
            #expect(try names([]) == ["Months", "IJsselmeer sail (sample)"])
            #expect(try names(["--oldest-first"]) == ["IJsselmeer sail (sample)", "Months"])
            let old = try runGPSLog(["sessions", "--oldest-first"], database: db).stdout.split(separator: "\n")
            #expect(old.count == 3 && old[1].hasPrefix("IJsselmeer"), "\(old)")
        }
    }
}
