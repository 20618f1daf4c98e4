// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording

extension SourceState {
    /// One line for `gpslog status`: "waiting for the device since 2026-05-01T08:00:00Z (35 s), 1 reconnect, last
    /// sentence 2026-05-01T07:59:59Z (36.0 s ago)".
    var text: String {
        var parts: [String] = []
        switch (state, waitingFor, waitingSince, waitingSeconds) {
        case ("waiting", let what?, let since?, let seconds?):
            parts.append(
                "waiting for the \(what) since \(since) (\(Format.duration(milliseconds: Int64(seconds * 1000))))")
        default:
            parts.append(state)
        }
        parts.append("\(reconnects) reconnect\(reconnects == 1 ? "" : "s")")
        if let time = lastSentenceTime, let age = lastSentenceAgeSeconds {
            parts.append(String(format: "last sentence %@ (%.1f s ago)", time, age))
        } else {
            parts.append("no sentence yet")
        }
        return parts.joined(separator: ", ")
    }
}
