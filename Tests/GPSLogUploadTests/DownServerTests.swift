// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// A recorder sending to a server that is down (nothing listens on its port).
@Suite(.ownThreads)
struct DownServerTests {
    /// Each attempt to a refused port waited for the request's whole 30 s deadline (the HTTP client retried the
    /// connection until then), so a send took 90 s and `stop` over a minute; and the warning was said again at every
    /// send interval.
    @Test(arguments: ["osmand", "http"])
    func aRefusedServerIsSaidOnceAndStopsAtOnce(scheme: String) async throws {
        try await withTemporaryDirectory { dir in
            let port = try freeLoopbackPort()
            let url = scheme == "osmand" ? "osmand://127.0.0.1:\(port)" : "http://127.0.0.1:\(port)/overland"
            let db = dir + "/gpslog.sqlite"
            // An hour's log: the recording runs until `stop`, however long a busy machine keeps this test waiting.
            try writeLongNMEALog(dir + "/hour.nmea")
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--source", "replay:\(dir)/hour.nmea?speed=1", "--geocode", "off", "--name", "Away",
                    "--commit-every", "1s", "--send", url, "--send-interval", "1s",
                ], database: db, folder: dir, environment: ["GPSLOG_RETRY_DELAY": "0.05"])
            defer { kill(recorder.process.processIdentifier, SIGKILL) }
            let warning = "sending: http://127.0.0.1:\(port)"
            #expect(await waitUntilAsync(timeout: 240) { recorder.stderr.contains(warning) }, "\(recorder.stderr)")
            // Several send intervals more, each a failed send: the queue grows, the warning is not said again.
            var queued = 0
            #expect(
                try await waitUntilAsync(timeout: 240) {
                    let s = try await runGPSLogAsync(["status", "--json"], database: db, folder: dir).stdout
                    let json = try? JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any]
                    let sending = json?["sending"] as? [String: Any]
                    queued = sending?["queued"] as? Int ?? 0
                    return queued >= 8 && (sending?["lastError"] as? String)?.contains("connection refused") == true
                }, "\(queued) queued")
            #expect(recorder.stderr.components(separatedBy: warning).count == 2, "\(recorder.stderr)")

            let stop = try await runGPSLogAsync(["stop"], database: db, folder: dir)
            #expect(stop.status == 0, "\(stop.stderr)")
            // Its last send fails as quickly as the others: well inside the 90 s of its three attempts before.
            let stopped = ContinuousClock.now
            #expect(await recorder.exitStatus(timeout: 60) == 0, "\(recorder.stderr)")
            #expect(ContinuousClock.now - stopped < .seconds(45), "\(recorder.stderr)")
            #expect(recorder.stderr.contains("points were not confirmed by http://127.0.0.1:\(port)"))
        }
    }
}
