// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `record --split`, `--name` templates and the fix gate, through the real binary replaying real logs: the bundled
/// B&G capture (a boat on the IJsselmeer) and the SignalK capture (a receiver standing in Amsterdam for 20 minutes).
@Suite(.ownThreads)
struct SplitRecordingTests {
    static let sample = TestPaths.packageRoot + "/Sources/GPSLogBundledRecording/bundg_zeus_9.log"
    static var signalK: String { TestPaths.sharedData + "/nmea/signalk-gps.log" }

    /// The lines of a log, without those whose epoch (the hhmmss of the last RMC or GGA) is in `range`.
    static func cutting(_ path: String, epochs range: Range<Int>) throws -> String {
        var epoch = 0
        var kept: [Substring] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            if line.hasPrefix("$"), line.dropFirst(3).hasPrefix("RMC") || line.dropFirst(3).hasPrefix("GGA"),
                fields.count > 1, let t = Int(fields[1].prefix(6))
            {
                epoch = t
            }
            if !range.contains(epoch) { kept.append(line) }
        }
        return kept.joined(separator: "\n") + "\n"
    }

    /// Records `log` with `arguments`; returns the sessions as `sessions --json --oldest-first` lists them.
    static func record(_ log: String, _ arguments: [String], in dir: String) throws -> [[String: Any]] {
        let path = dir + "/log.nmea"
        try log.write(toFile: path, atomically: true, encoding: .utf8)
        let db = dir + "/db.sqlite"
        let r = try runGPSLog(
            ["record", "--source", "replay:\(path)?speed=0", "--geocode", "off"] + arguments, database: db)
        try #require(r.status == 0, "\(r.stderr)")
        let sessions = try runGPSLog(["sessions", "--json", "--oldest-first"], database: db)
        return try #require(try JSONSerialization.jsonObject(with: Data(sessions.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aGapInTheLogStartsASessionNamedFromItsFirstFix() throws {
        try withTemporaryDirectory { dir in
            // A minute without fixes (09:48) in the middle of the sail: the engine was off.
            let log = try Self.cutting(Self.sample, epochs: 94800..<94900)
            let sessions = try Self.record(
                log, ["--split", "gap:30s", "--name", "Sail %H:%M", "--timezone", "UTC"], in: dir)
            #expect(sessions.map { $0["name"] as? String } == ["Sail 09:47", "Sail 09:49"])
            #expect((sessions[0]["end"] as? String)?.hasPrefix("2018-08-20T09:47:5") == true)
            #expect((sessions[1]["start"] as? String)?.hasPrefix("2018-08-20T09:49:0") == true)
            #expect(sessions.allSatisfy { ($0["entries"] as? Int ?? 0) > 15 }, "\(sessions)")

            // A plain name with --split gets each session's start time after it, so no two share a name.
            try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: false)
            let plain = try Self.record(
                log, ["--split", "gap:30s", "--name", "Sail", "--timezone", "UTC"], in: dir + "/plain")
            #expect(plain.map { $0["name"] as? String } == ["Sail 2018-08-20 09:47", "Sail 2018-08-20 09:49"])

            // The same log without --split is one session, named after its start time (as GPS Log names them).
            try FileManager.default.createDirectory(atPath: dir + "/one", withIntermediateDirectories: false)
            let one = try Self.record(log, ["--timezone", "UTC"], in: dir + "/one")
            #expect(one.count == 1)
            #expect(one.first?["name"] as? String == "2018-08-20 09:47")
        }
    }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func midnightSplitsInTheZoneGiven() throws {
        // 08:54 to 09:14 UTC: midnight in Pacific/Gambier (UTC-9) falls at 09:00; in Amsterdam and UTC, none.
        let log = try String(contentsOfFile: Self.signalK, encoding: .utf8)
        try withTemporaryDirectory { dir in
            let gambier = try Self.record(log, ["--split", "daily", "--timezone", "Pacific/Gambier"], in: dir)
            #expect(gambier.map { $0["name"] as? String } == ["2014-04-02 23:54", "2014-04-03 00:00"])
            #expect((gambier[1]["start"] as? String)?.hasPrefix("2014-04-03T09:00:0") == true)
        }
        for zone in ["Europe/Amsterdam", "UTC"] {
            try withTemporaryDirectory { dir in
                let sessions = try Self.record(log, ["--split", "daily", "--timezone", zone], in: dir)
                #expect(sessions.count == 1, "\(zone)")
            }
        }
    }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func drivingOffAfterAStopSplitsWhileAReceiverStandingStillDoesNot() throws {
        let standing = try String(contentsOfFile: Self.signalK, encoding: .utf8)
        try withTemporaryDirectory { dir in
            // Twenty minutes standing (the receiver wanders 29 m at up to a knot): one session.
            let sessions = try Self.record(standing, ["--split", "stop:5m"], in: dir)
            #expect(sessions.count == 1)
        }
        try withTemporaryDirectory { dir in
            // Then it drives off north at 10 m/s (synthetic: no real capture has the stop and the start).
            let departure = (0..<40).map { k in
                let t = String(format: "%06d", 91413 + k)  // 09:14:13 to 09:14:52
                let lat = String(format: "5222.%04d", 3141 + k * 54)  // 10 m a second
                return nmeaSentence("GPRMC,\(t).000,A,\(lat),N,00454.5844,E,19.4,0.0,030414,,,A") + "\n"
                    + nmeaSentence("GPGGA,\(t).000,\(lat),N,00454.5844,E,1,8,1.0,16.0,M,47.0,M,,") + "\n"
            }.joined()
            let sessions = try Self.record(standing + departure, ["--split", "stop:5m"], in: dir)
            #expect(sessions.count == 2)
            let start = sessions.last?["start"] as? String ?? ""
            #expect(start >= "2014-04-03T09:14:15" && start <= "2014-04-03T09:14:25", "\(start)")
        }
    }

    @Test func outliersAreDroppedAndCountedInTheSession() throws {
        try withTemporaryDirectory { dir in
            // Two epochs of the real log changed (RMC, GGA and GLL): one at 0, 0 and one 60 km away (a wild fix).
            var lines = try String(contentsOfFile: Self.sample, encoding: .utf8).split(whereSeparator: \.isNewline)
                .map(String.init)
            func replace(_ epoch: String, latitude: String, longitude: String) {
                for i in lines.indices where lines[i].hasPrefix("$GP") {
                    var fields = lines[i].dropFirst().split(separator: "*")[0].split(
                        separator: ",", omittingEmptySubsequences: false
                    ).map(String.init)
                    let at: Int
                    switch fields[0] {
                    case "GPRMC" where fields[1] == epoch: at = 3
                    case "GPGGA" where fields[1] == epoch: at = 2
                    case "GPGLL" where fields.count > 5 && fields[5] == epoch: at = 1
                    default: continue
                    }
                    fields[at] = latitude
                    fields[at + 2] = longitude
                    lines[i] = nmeaSentence(fields.joined(separator: ","))
                }
            }
            replace("094800", latitude: "0000.0000", longitude: "00000.0000")
            replace("094900", latitude: "5324.0000", longitude: "00518.5000")
            let sessions = try Self.record(lines.joined(separator: "\n") + "\n", ["--name", "Sail"], in: dir)
            let show = try runGPSLog(["show", "Sail", "--json"], database: dir + "/db.sqlite")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
            let dropped = try #require(json["droppedFixes"] as? [String: Int], "\(show.stdout)")
            #expect(dropped["speed"] == 1 && dropped["position"] == 1 && dropped["time"] == 0, "\(dropped)")
            let box = try #require(json["boundingBox"] as? [String: Double])
            #expect((box["maxLatitude"] ?? 90) < 52.9 && (box["minLatitude"] ?? 0) > 52.8, "\(box)")
            #expect(sessions.count == 1)
            let text = try runGPSLog(["show", "Sail"], database: dir + "/db.sqlite")
            #expect(text.stdout.contains("Dropped fixes: 2 (1 position, 1 speed)"), "\(text.stdout)")
        }
    }
}
