// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog record` from a gpsd that stops talking, and from one that is not there yet: a loopback "gpsd" answers
/// `?WATCH` as gpsd does, sends a few fixes, and then holds the connection open in silence.
@Suite(.ownThreads, .serialized)
struct RecordGPSDWatchdogTests {
    @Test func aSilentGPSDIsDroppedAndReconnectedAfterTheWatchdog() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let gpsd = try LoopbackGPSD(fixesPerConnection: 5)
            defer { gpsd.stop() }
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Hung", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--watchdog", "1s"],
                database: db, folder: dir)
            // The second connection's fixes arrive only if the silent first one was dropped.
            let s = try #require(
                waitForStatus(db, timeout: 30) { ($0.lastFixTime ?? "") >= "2026-05-01T08:01:04Z" },
                "\(recorder.stderr)")
            #expect(gpsd.connections >= 2)
            #expect((s.sourceState?.reconnects ?? 0) >= 1)
            #expect(s.fixesReceived >= 10)
            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "stop: \(stopped.stderr); recorder: \(recorder.stderr)")
            #expect(recorder.wait(timeout: 10) == 0, "\(recorder.stderr)")
            #expect(recorder.stderr.contains("gpsd at 127.0.0.1:\(gpsd.port) sent nothing for 1.0 s; reconnecting"))
            let store = try Store(path: db)
            defer { store.close() }
            #expect(try store.sessions().count == 1)
        }
    }

    @Test func aRecorderStartedBeforeGPSDWaitsForIt() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let port = try freeLoopbackPort()
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Early", "--source", "gpsd://127.0.0.1:\(port)"], database: db, folder: dir)
            let waiting = waitForStatus(db, timeout: 20) { $0.sourceState?.state == "waiting" }
            #expect(waiting?.sourceState?.waitingFor == "daemon", "\(recorder.stderr)")
            #expect(recorder.process.isRunning)
            let gpsd = try LoopbackGPSD(port: port, fixesPerConnection: 5)
            defer { gpsd.stop() }
            let s = try #require(
                waitForStatus(db, timeout: 60) { $0.lastFixTime == "2026-05-01T08:00:04Z" }, "\(recorder.stderr)")
            #expect(s.sourceState?.state == "connected")
            #expect(s.sourceState?.reconnects == 0)
            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "stop: \(stopped.stderr); recorder: \(recorder.stderr)")
            #expect(recorder.wait(timeout: 10) == 0, "\(recorder.stderr)")
            #expect(recorder.stdout.contains("Recorded 'Early'"))
        }
    }

    @Test(arguments: ["0", "soon", "0ms"])
    func aBadWatchdogIsRefused(value: String) throws {
        let r = try runGPSLog(["record", "--name", "X", "--watchdog", value], database: "/nonexistent/db.sqlite")
        #expect(r.status == 64)
        #expect(r.stderr.contains("--watchdog must be a duration such as 5s, 10s or 1m, or off."))
    }
}
