// SPDX-License-Identifier: MIT

import Foundation
import GPSLogModel
import GPSLogSources
import Testing

/// Finds the shared NMEA captures (gpsd regression logs and their gpsd outputs) used as real-world test input.
///
/// Looked up as `GPSLOG_SHARED_DATA` (the `nmea` folder itself or its parent's parent: either
/// `<shared>/data/nmea` or `<shared>` works), else `<folder holding Package.swift>/../shared/data/nmea`,
/// starting from this source file. Tests that need it are disabled with a message when it is absent.
enum NMEATestData {
    static let directory: String? = {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["GPSLOG_SHARED_DATA"], !env.isEmpty {
            for candidate in [env, env + "/data/nmea", env + "/nmea"]
            where fm.fileExists(atPath: candidate + "/bu353s4.log") {
                return candidate
            }
            return nil
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                let nmea = dir.deletingLastPathComponent().appendingPathComponent("shared/data/nmea").path
                return fm.fileExists(atPath: nmea + "/bu353s4.log") ? nmea : nil
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    static var available: Bool { directory != nil }

    static let missingMessage: Comment =
        "shared NMEA data not found: set GPSLOG_SHARED_DATA or place it at <package>/../shared/data/nmea"

    static func path(_ name: String) -> String { (directory ?? "/nonexistent") + "/" + name }

    /// Every `*.log` that has a HEAD-gpsd `.chk` beside it, plus signalk-gps.log (gpsd 3.22 oracle only).
    static var oracleLogs: [String] {
        guard let dir = directory,
            let names = try? FileManager.default.contentsOfDirectory(atPath: dir)
        else { return [] }
        return names.filter { $0.hasSuffix(".log") }.sorted()
    }

    /// Decodes a whole file, collecting the events.
    static func decode(
        _ name: String, assumedDate: (year: Int, month: Int, day: Int)? = nil
    ) throws -> (fixes: [Fix], headings: [HeadingReading], statistics: NMEAStatistics) {
        var fixes: [Fix] = []
        var headings: [HeadingReading] = []
        let stats = try NMEAFileReader(path: path(name), assumedDate: assumedDate).read { event in
            switch event {
            case .fix(let f): fixes.append(f)
            case .heading(let h): headings.append(h)
            case .resumed: Issue.record("a decoder of text never resumes")
            }
        }
        return (fixes, headings, stats)
    }

    /// The raw lines of a file (split on CR and LF), as bytes, for tests that feed the decoder directly.
    static func lines(_ name: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path(name)))
        return data.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }).map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}

/// One gpsd TPV report with a position.
struct GPSDReport {
    var time: Int64?  // milliseconds since 1970, nil when gpsd had no date
    var latitude: Double
    var longitude: Double
    var eph: Double?
    var epv: Double?
    var speed: Double?
    var track: Double?
    var altitude: Double?
    var mode: Int
}

enum GPSDOracle {
    /// gpsd 3.22 pushes NMEA dates before 2017 forward by 1024 GPS weeks (a gpsd bug, not reproduced here).
    static let week1024Shift: Int64 = 619_315_200_000
    static let year2017: Int64 = 1_483_228_800_000

    /// The TPV reports with mode >= 2 and a position, in file order. With `undoWeekShift` (gpsd 3.22 outputs),
    /// times that land before 2017 once shifted back are shifted back.
    static func reports(_ chkName: String, undoWeekShift: Bool = false) throws -> [GPSDReport] {
        var out: [GPSDReport] = []
        let text = try String(contentsOfFile: NMEATestData.path(chkName), encoding: .utf8)
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
            guard let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let mode = obj["mode"] as? Int, mode >= 2,
                let lat = obj["lat"] as? Double, let lon = obj["lon"] as? Double
            else { continue }
            var time: Int64?
            if let iso = obj["time"] as? String, let ts = Timestamp(iso8601: iso) {
                var ms = ts.milliseconds
                if undoWeekShift, ms - week1024Shift < year2017 { ms -= week1024Shift }
                time = ms
            }
            out.append(
                GPSDReport(
                    time: time, latitude: lat, longitude: lon, eph: obj["eph"] as? Double,
                    epv: obj["epv"] as? Double, speed: obj["speed"] as? Double, track: obj["track"] as? Double,
                    altitude: (obj["altMSL"] as? Double) ?? (obj["alt"] as? Double), mode: mode))
        }
        return out
    }
}
