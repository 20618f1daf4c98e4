// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogRecording

extension RecordingOutcome {
    /// What `gpslog record` prints when it ends; `monitoring`: an OwnTracks monitoring mode was on (it may ask for
    /// no entry at all).
    func summary(monitoring: Bool) -> String {
        switch self {
        case .recorded(let session, let entries, let marks, let distance, let count):
            let earlier = count > 1 ? " (the last of \(count) sessions)" : ""
            return "Recorded '\(session.name.visible)' (\(session.shortID))\(earlier): "
                + "\(counted(entries, "entry", "entries")), \(counted(marks, "mark")), \(Format.distance(distance))."
        case .noFix:
            return monitoring
                ? "No entry was recorded (the monitoring mode asked for none, or no fix arrived): no session."
                : "No fix arrived: no session was recorded."
        }
    }
}
