// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// Hardening finding 2, end to end: in a 30-fix 2024 log, one sentence dated far from the others used to leave 6
/// entries (the recorder, `import` and `convert` alike) and a session running 2024 -> 2031.
@Suite(.ownThreads)
struct HostileTimeTests {
    /// 30 RMC+GGA epochs at 1 Hz on 2024-05-01, the fifth RMC dated `badDate`.
    static func log(badDate: String) -> String {
        (0..<30).map { k in
            let time = String(format: "0600%02d.00", k)
            let lat = String(format: "5231.%04d", k * 10)
            return nmeaSentence("GPRMC,\(time),A,\(lat),N,00524.0000,E,5.0,0.0,\(k == 4 ? badDate : "010524"),,,A")
                + "\n"
                + nmeaSentence("GPGGA,\(time),\(lat),N,00524.0000,E,1,08,0.9,1.0,M,46.0,M,,") + "\n"
        }.joined()
    }

    @Test(arguments: ["010531", "010523"])  // past tomorrow (refused date), and a year off (held back, dropped)
    func recordImportAndConvertKeepEveryGoodFix(badDate: String) throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/bad-date.nmea"
            try Self.log(badDate: badDate).write(toFile: path, atomically: true, encoding: .utf8)
            let expected = badDate == "010531" ? 30 : 29
            let db = dir + "/db.sqlite"

            let imported = try runGPSLog(["import", path, "--name", "Imported"], database: db)
            try #require(imported.status == 0, "\(imported.stderr)")
            let recorded = try runGPSLog(
                ["record", "--name", "Recorded", "--source", "replay:\(path)?speed=0", "--geocode", "off"], database: db
            )
            try #require(recorded.status == 0, "\(recorded.stderr)")
            #expect(recorded.stdout.contains("\(expected) entries"), "\(recorded.stdout)")

            let sessions = try runGPSLog(["sessions", "--json"], database: db)
            let list = try #require(
                try JSONSerialization.jsonObject(with: Data(sessions.stdout.utf8)) as? [[String: Any]])
            #expect(list.count == 2)
            for session in list {
                #expect(session["entries"] as? Int == expected, "\(session)")
                #expect((session["start"] as? String)?.hasPrefix("2024-05-01T06:00:0") == true)
                #expect((session["end"] as? String)?.hasPrefix("2024-05-01T06:00:29") == true, "\(session)")
            }

            let converted = try runGPSLog(["convert", path, dir + "/out.geojson"], database: dir + "/unused.sqlite")
            try #require(converted.status == 0, "\(converted.stderr)")
            let geojson = try String(contentsOfFile: dir + "/out.geojson", encoding: .utf8)
            #expect(geojson.components(separatedBy: "2024-05-01T06:00:").count - 1 >= expected)
            #expect(!geojson.contains("2031") && !geojson.contains("2023-"))
        }
    }
}
