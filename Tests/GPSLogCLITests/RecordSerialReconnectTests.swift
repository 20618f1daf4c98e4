// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog record --source nmea:DEVICE` through an unplug: a socat pty pair is the receiver; ending socat unplugs
/// it, starting it again with the same link names plugs it back in. The real sample log is the receiver's output.
@Suite(.serialized, .enabled(if: SocatPTYPair.isAvailable, "needs socat (make test installs it)"))
struct RecordSerialReconnectTests {
    /// The bundled sample's sentences, split at 09:49:00: before the unplug as recorded, after it re-stamped ten
    /// minutes later (the receiver came back after a ten-minute outage: longer than the exports' 5-minute gap rule).
    static func sampleHalves() throws -> (before: String, after: String) {
        let path = TestPaths.packageRoot + "/Sources/GPSLogSample/bundg_zeus_9.log"
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
            .filter { $0.hasPrefix("$") }.map(String.init)
        let split = try #require(lines.firstIndex { $0.hasPrefix("$GPRMC,0949") })
        let after = lines[split...].map { nmeaShiftingTimes($0, bySeconds: 600) }
        return (lines[..<split].map { $0 + "\r\n" }.joined(), after.map { $0 + "\r\n" }.joined())
    }

    @Test func anUnpluggedReceiverIsWaitedForAndTheSessionCarriesOn() throws {
        let (before, after) = try Self.sampleHalves()
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let pair = try SocatPTYPair(folder: dir)
            defer { pair.unplug() }
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Car", "--source", "nmea:\(pair.device)"], database: db, folder: dir)
            func state(_ state: String, timeout: Double = 30) -> RecorderStatus? {
                waitForStatus(db, timeout: timeout) { $0.sourceState?.state == state }
            }
            func lastFix(atLeast time: String) -> RecorderStatus? {
                waitForStatus(db, timeout: 30) { ($0.lastFixTime ?? "") >= time }
            }
            #expect(state("connected") != nil, "\(recorder.stderr)")

            try pair.write(before)
            let first = try #require(lastFix(atLeast: "2018-08-20T09:48:55Z"), "\(recorder.stderr)")

            pair.unplug()
            let waiting = state("waiting", timeout: 15)
            #expect(waiting != nil, "\(recorder.stderr)")
            #expect(waiting?.sourceState?.waitingFor == "device")
            #expect(waiting?.sourceState?.waitingSince != nil)
            #expect(waiting?.sourceState?.reconnects == 0)
            #expect(waiting?.connected == false)
            #expect(recorder.process.isRunning, "the recorder exited on the unplug: \(recorder.stderr)")
            let text = try runGPSLog(["status"], database: db)
            #expect(text.stdout.contains(try Regex(#"Connection: +waiting for the device since "#)), "\(text.stdout)")

            try pair.plugIn()
            let back = state("connected")
            #expect(back != nil, "\(recorder.stderr)\n\(pair.socatLog)")
            #expect(back?.sourceState?.reconnects == 1)
            try pair.write(after)
            let last = try #require(lastFix(atLeast: "2018-08-20T09:59:58Z"), "\(recorder.stderr)")
            #expect(last.sessionID == first.sessionID)
            #expect(last.entries > first.entries)
            #expect(last.sourceState?.reconnects == 1)
            #expect(last.sourceState?.lastSentenceTime != nil)

            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "stop: \(stopped.stderr); recorder: \(recorder.stderr)")
            #expect(recorder.wait(timeout: 10) == 0, "\(recorder.stderr)")
            #expect(recorder.stderr.contains("lost \(pair.device) (Input/output error); waiting for it to come back"))
            #expect(recorder.stderr.contains("\(pair.device) is back after"))

            let store = try Store(path: db)
            let sessions = try store.sessions()
            store.close()
            #expect(sessions.count == 1)
            // The ten-minute gap starts a new segment: a second trkseg in GPX, a MultiLineString in GeoJSON.
            let gpx = try runGPSLog(["export", "Car", "--format", "gpx"], database: db)
            #expect(gpx.status == 0, "\(gpx.stderr)")
            #expect(gpx.stdout.components(separatedBy: "<trkseg>").count - 1 == 2)
            let geojson = try runGPSLog(["export", "Car", "--format", "geojson"], database: db)
            #expect(geojson.stdout.contains("MultiLineString"))
        }
    }
}
