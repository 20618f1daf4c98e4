// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog record --source nmea:DEVICE` through an unplug: a socat pty pair is the receiver; ending socat unplugs
/// it, starting it again with the same link names plugs it back in. The real sample log is the receiver's output.
@Suite(.ownThreads, .serialized, .enabled(if: SocatPTYPair.isAvailable, "needs socat (make test installs it)"))
struct RecordSerialReconnectTests {
    /// The bundled sample's sentences, split at 09:49:00: before the unplug as recorded, after it re-stamped 30 s
    /// later (the receiver came back after a short outage: far shorter than the exports' 5-minute gap rule, so only
    /// the recorded segment start can break the track there).
    static func sampleHalves() throws -> (before: String, after: String) {
        let path = TestPaths.packageRoot + "/Sources/GPSLogBundledRecording/bundg_zeus_9.log"
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
            .filter { $0.hasPrefix("$") }.map(String.init)
        let split = try #require(lines.firstIndex { $0.hasPrefix("$GPRMC,0949") })
        let after = lines[split...].map { nmeaShiftingTimes($0, bySeconds: 30) }
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
            let last = try #require(lastFix(atLeast: "2018-08-20T09:50:28Z"), "\(recorder.stderr)")
            #expect(last.sessionID == first.sessionID)
            #expect(last.entries > first.entries)
            #expect(last.sourceState?.reconnects == 1)
            #expect(last.sourceState?.lastSentenceTime != nil)

            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "stop: \(stopped.stderr); recorder: \(recorder.stderr)")
            #expect(recorder.wait(timeout: 10) == 0, "\(recorder.stderr)")
            // poll(2) sees the hang-up before read(2) would fail with EIO: the read then returns 0.
            #expect(
                recorder.stderr.contains("lost \(pair.device) (the line hung up); waiting for it to come back"),
                "\(recorder.stderr)")
            #expect(recorder.stderr.contains("\(pair.device) is back after"))

            let store = try Store(path: db)
            let sessions = try store.sessions()
            store.close()
            #expect(sessions.count == 1)
            // The unplug starts a new segment though only 30 s passed: a second trkseg in GPX, a MultiLineString in
            // GeoJSON, a MultiGeometry in KML, and StartsSegment in the session XML, which an import keeps.
            try expectTwoSegments(db, session: "Car", folder: dir)
            let xml = try runGPSLog(["export", "Car", "--format", "xml", "--output", dir + "/car.xml"], database: db)
            #expect(xml.status == 0, "\(xml.stderr)")
            #expect(try String(contentsOfFile: dir + "/car.xml", encoding: .utf8).contains("StartsSegment=\"true\""))
            let copy = dir + "/copy.sqlite"
            let imported = try runGPSLog(["import", dir + "/car.xml"], database: copy)
            #expect(imported.status == 0, "\(imported.stderr)")
            try expectTwoSegments(copy, session: "Car", folder: dir)
        }
    }

    /// A receiver that stays plugged in but falls silent (power lost behind its USB adapter) is closed and opened
    /// again after the watchdog; what it sends after is a new segment of the same session.
    @Test func aSilentDeviceIsReopenedAfterTheWatchdog() throws {
        let (before, after) = try Self.sampleHalves()
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let pair = try SocatPTYPair(folder: dir)
            defer { pair.unplug() }
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Boat", "--source", "nmea:\(pair.device)", "--watchdog", "1s"], database: db,
                folder: dir)
            try pair.write(before)
            let first = try #require(
                waitForStatus(db, timeout: 30) { ($0.lastFixTime ?? "") >= "2018-08-20T09:48:55Z" },
                "\(recorder.stderr)")
            #expect(first.sourceState?.reconnects == 0)
            // Silence: each watchdog period the device is reopened, and it is there, so it counts as a reconnect.
            let reopened = waitForStatus(db, timeout: 20) { ($0.sourceState?.reconnects ?? 0) >= 2 }
            #expect(reopened != nil, "\(recorder.stderr)")
            #expect(
                recorder.stderr.contains("lost \(pair.device) (it sent nothing for 1.0 s); waiting for it to come back")
            )
            try pair.write(after)
            let last = try #require(
                waitForStatus(db, timeout: 30) { ($0.lastFixTime ?? "") >= "2018-08-20T09:50:28Z" },
                "\(recorder.stderr)")
            #expect(last.sessionID == first.sessionID)
            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "stop: \(stopped.stderr); recorder: \(recorder.stderr)")
            #expect(recorder.wait(timeout: 10) == 0, "\(recorder.stderr)")
            try expectTwoSegments(db, session: "Boat", folder: dir)
        }
    }

    /// The session's exports break its track once.
    func expectTwoSegments(_ db: String, session: String, folder: String) throws {
        let gpx = try runGPSLog(["export", session, "--format", "gpx"], database: db)
        #expect(gpx.status == 0, "\(gpx.stderr)")
        #expect(gpx.stdout.components(separatedBy: "<trkseg>").count - 1 == 2, "\(gpx.stdout.prefix(2000))")
        let geojson = try runGPSLog(["export", session, "--format", "geojson"], database: db)
        #expect(geojson.stdout.contains("MultiLineString"))
        let kml = try runGPSLog(["export", session, "--format", "kml"], database: db)
        #expect(kml.stdout.components(separatedBy: "<gx:Track>").count - 1 == 2)
        #expect(kml.stdout.contains("<gx:MultiTrack>"))
        // A GPX read back in keeps its two trksegs.
        let path = folder + "/\(UUID().uuidString).gpx"
        try gpx.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        let again = folder + "/\(UUID().uuidString).sqlite"
        let imported = try runGPSLog(["import", path], database: again)
        #expect(imported.status == 0, "\(imported.stderr)")
        let back = try runGPSLog(["export", session, "--format", "gpx"], database: again)
        #expect(back.stdout.components(separatedBy: "<trkseg>").count - 1 == 2, "\(back.stderr)")
    }
}
