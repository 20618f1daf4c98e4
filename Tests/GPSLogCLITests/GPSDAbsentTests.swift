// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `record` started before gpsd (a boot where gpsd comes up late, or a gpsd that is not installed): it says so once,
/// in words, and keeps trying quietly.
@Suite(.ownThreads)
struct GPSDAbsentTests {
    @Test func anAbsentGPSDIsReportedOnceInWords() throws {
        try withTemporaryDirectory { dir in
            let port = try freeLoopbackPort()  // nothing listens there
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Waiting", "--verbose", "--source", "gpsd://127.0.0.1:\(port)"],
                database: dir + "/gpslog.sqlite", folder: dir)
            // --verbose shows the repeats at debug level: wait for the fourth attempt.
            #expect(waitUntil(timeout: 120) { recorder.stderr.contains("(4 times in a row)") }, "\(recorder.stderr)")
            let stopped = try runGPSLog(["stop"], database: dir + "/gpslog.sqlite")
            #expect(stopped.status == 0, "\(stopped.stderr)")
            _ = recorder.wait(timeout: 60)
            let lines = recorder.stderr.split(separator: "\n").filter { $0.contains("cannot reach gpsd") }
            let warnings = lines.filter { $0.contains("warning") }
            #expect(warnings.count == 1, "\(lines)")
            #expect(warnings.first?.contains("connection refused") == true, "\(lines)")
            #expect(!recorder.stderr.contains("NIOConnectionError") && !recorder.stderr.contains("SingleConnection"))
        }
    }
}
