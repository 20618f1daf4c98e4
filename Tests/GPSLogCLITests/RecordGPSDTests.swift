// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog record` against a real gpsd (gpsfake replaying a real log on a random loopback port); the session is
/// checked against gpsd's own decoding of the same log (its `.gpsd-3.22.chk`).
@Suite(
    .ownThreads,
    .serialized, .enabled(if: GPSFake.isAvailable && TestPaths.hasSharedData, "needs gpsd, gpsfake and ../shared/data"))
struct RecordGPSDTests {
    struct TPV {
        var time: Timestamp
        var lat: Double
        var lon: Double
    }

    /// gpsd's positioned epochs: TPV with mode >= 2, a time and a position; the first complete one per time.
    /// `all` keeps every such TPV: gpsd may report one epoch twice (one per sentence), and a recorder that connects
    /// mid-epoch sees only the later one.
    static func expectedFixes(chk: String, all: Bool = false) throws -> [TPV] {
        var result: [TPV] = []
        for line in try String(contentsOfFile: chk, encoding: .utf8).split(whereSeparator: \.isNewline)
        where line.contains("\"class\":\"TPV\"") {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                (o["mode"] as? Int ?? 0) >= 2, let t = (o["time"] as? String).flatMap({ Timestamp(iso8601: $0) }),
                let lat = o["lat"] as? Double, let lon = o["lon"] as? Double
            else { continue }
            if !all, let last = result.last, t <= last.time { continue }
            result.append(TPV(time: t, lat: lat, lon: lon))
        }
        return result
    }

    @Test(arguments: ["bundg_zeus_9.log", "telit-he910.log"])
    func aGPSDReplayGivesTheLogsFixes(log: String) throws {
        let path = TestPaths.sharedData + "/nmea/" + log
        let tpvs = try Self.expectedFixes(chk: path + ".gpsd-3.22.chk")
        #expect(tpvs.count > 100)
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let gpsd = try GPSFake(log: path)
            defer { gpsd.stop() }
            let recorder = try BackgroundGPSLog(
                ["record", "--name", log, "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--interval", "1s"],
                database: db, folder: dir)
            // Until the last epoch of the log has reached the recorder.
            let lastTime = tpvs.last!.time.iso8601()
            let done = try waitUntil(timeout: 60) {
                let r = try runGPSLog(["status", "--json"], database: db)
                guard r.status == 0, let s = try? JSONDecoder().decode(RecorderStatus.self, from: Data(r.stdout.utf8))
                else { return false }
                return s.lastFixTime == lastTime
            }
            #expect(done, "the recorder never saw the log's last fix: \(recorder.stderr)")
            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "stop: \(stopped.stderr); recorder: \(recorder.stderr)")
            #expect(recorder.wait(timeout: 10) == 0)

            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession(log)
            var track: [Entry] = []
            try store.entries(of: session.id).forEach { if !$0.isHeadingChanged && !$0.marked { track.append($0) } }
            let first = try #require(track.first)
            // gpsfake sends before the recorder connects, so compare from the first fix the recorder received;
            // it must have a good part of the log.
            var sampled: [TPV] = []
            for tpv in tpvs where tpv.time >= first.time {
                if let last = sampled.last, tpv.time.milliseconds - last.time.milliseconds < 1000 { continue }
                sampled.append(tpv)
            }
            // What is checked strictly is below: from its first fix on, the recorder lost no epoch. This share only
            // guards against a recorder that hardly connected: gpsfake starts its feed at the first client, and the
            // recorder's WATCH follows its connection by up to seconds on a loaded machine (the telit log lasts 3 s).
            #expect(
                Double(sampled.count) >= 0.33 * Double(tpvs.count),
                "recorded only \(sampled.count) of \(tpvs.count) epochs")
            // One accepted fix per interval: each stored row or instance stands for one sampled epoch.
            #expect(track.map(\.instanceCount).reduce(0, +) == sampled.count)
            // Every row is at gpsd's position for its time.
            let byTime = Dictionary(
                grouping: try Self.expectedFixes(chk: path + ".gpsd-3.22.chk", all: true), by: \.time)
            for entry in track {
                let candidates = try #require(byTime[entry.time], "no gpsd fix at \(entry.time)")
                let matches = candidates.contains {
                    abs($0.lat - entry.latitude) <= 1e-6 && abs($0.lon - entry.longitude) <= 1e-6
                }
                #expect(matches, "\(entry.time): \(entry.latitude), \(entry.longitude) is none of gpsd's \(candidates)")
            }
        }
    }
}

extension RecordGPSDTests {
    /// gpsd goes away mid-recording and comes back: the recorder reconnects and carries on in the same session.
    @Test func theRecorderReconnectsWhenGPSDComesBack() throws {
        let first = TestPaths.sharedData + "/nmea/bundg_zeus_9.log"  // 2018
        let second = TestPaths.sharedData + "/nmea/telit-he910.log"  // 2019: later times, so nothing is out of order
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            var gpsd = try GPSFake(log: first)
            let port = gpsd.port
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Both", "--source", "gpsd://127.0.0.1:\(port)"], database: db, folder: dir)
            func status() -> RecorderStatus? {
                guard let r = try? runGPSLog(["status", "--json"], database: db), r.status == 0 else { return nil }
                return try? JSONDecoder().decode(RecorderStatus.self, from: Data(r.stdout.utf8))
            }
            #expect(waitUntil(timeout: 30) { (status()?.fixesReceived ?? 0) > 20 })
            gpsd.stop()
            #expect(waitUntil(timeout: 10) { status()?.connected == false })
            gpsd = try GPSFake(log: second, port: port)
            defer { gpsd.stop() }
            #expect(waitUntil(timeout: 40) { status()?.lastFixTime?.hasPrefix("2019") == true }, "\(recorder.stderr)")
            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "stop: \(stopped.stderr); recorder: \(recorder.stderr)")
            #expect(recorder.wait(timeout: 10) == 0)
            #expect(
                recorder.stderr.contains("closed the connection; reconnecting")
                    || recorder.stderr.contains("cannot reach gpsd"))
            let store = try Store(path: db)
            defer { store.close() }
            let sessions = try store.sessions()
            #expect(sessions.count == 1)
            var years = Set<Int>()
            var segmentStarts: [Entry] = []
            var firstOf2019: Entry?
            try store.entries(of: sessions[0].id).forEach { e in
                years.insert(e.time.components.year)
                if e.startsSegment { segmentStarts.append(e) }
                if firstOf2019 == nil && e.time.components.year == 2019 && !e.isHeadingChanged { firstOf2019 = e }
            }
            #expect(years == [2018, 2019])
            // The reconnection starts a new segment at the first point gpsd sent after it.
            #expect(segmentStarts.count == 1)
            #expect(segmentStarts.first?.id == firstOf2019?.id)
        }
    }
}
