// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording
import GPSLogTestSupport

/// The running recorder's `gpslog status --json`; nil while none answers.
func recorderStatus(_ db: String) -> RecorderStatus? {
    guard let r = try? runGPSLog(["status", "--json"], database: db), r.status == 0 else { return nil }
    return try? JSONDecoder().decode(RecorderStatus.self, from: Data(r.stdout.utf8))
}

/// Asks the recorder for its status until `condition` holds (up to `timeout` seconds); returns that status, or nil.
func waitForStatus(_ db: String, timeout: Double, _ condition: (RecorderStatus) -> Bool) -> RecorderStatus? {
    var matching: RecorderStatus?
    _ = waitUntil(timeout: timeout) {
        matching = recorderStatus(db).flatMap { condition($0) ? $0 : nil }
        return matching != nil
    }
    return matching
}
