// SPDX-License-Identifier: MIT
import Foundation
import Logging

/// What a recording tells systemd when it runs as a `Type=notify` service (`dist/gpslog-record.service`):
/// `READY=1` once the source is open, `WATCHDOG=1` every half of `$WATCHDOG_USEC` while the recorder answers, and
/// `STATUS=` with the fix age and entries (what `systemctl status gpslog-record` shows).
enum RecordingNotifications {
    /// Starts reporting for `recorder`; nil when not under systemd (no `$NOTIFY_SOCKET`). Cancel the task when the
    /// recording ends: it sends `STOPPING=1` and returns.
    static func start(
        recorder: SessionRecorder, environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) -> Task<Void, Never>? {
        guard let notifier = ServiceNotifier(environment: environment, logger: logger) else { return nil }
        return Task { await report(to: notifier, recorder: recorder) }
    }

    static func report(to notifier: ServiceNotifier, recorder: SessionRecorder) async {
        let watchdog = notifier.watchdogTimeout
        // > it is recommended that a daemon sends a keep-alive notification message to the service manager every
        // > half of the time returned here. (sd_watchdog_enabled(3))
        let pingEvery = watchdog.map { $0 / 2 }
        let period = min(.seconds(1), pingEvery ?? .seconds(1))
        var ready = false
        var lastPing: ContinuousClock.Instant?
        var lastStatus = ""
        while !Task.isCancelled {
            // The answer comes from the recorder's own thread: a recorder stuck in a write stops the pings, and
            // systemd restarts it.
            let status = await recorder.status()
            var lines: [String] = []
            if !ready && (status.connected || status.fixesReceived > 0) {
                lines.append("READY=1")
                ready = true
            }
            if let pingEvery, lastPing.map({ ContinuousClock.now - $0 >= pingEvery - period / 10 }) ?? true {
                lines.append("WATCHDOG=1")
                lastPing = .now
            }
            let text = statusText(status)
            if text != lastStatus {
                lines.append("STATUS=" + text)
                lastStatus = text
            }
            if !lines.isEmpty { notifier.send(lines) }
            try? await Task.sleep(for: period)
        }
        notifier.send(["STOPPING=1", "STATUS=finishing the session"])
    }

    /// One line: "fix 1 s ago, 57 entries, 1 mark", or what the recorder waits for.
    static func statusText(_ s: RecorderStatus) -> String {
        let counts = "\(s.entries) entries, \(s.marks) mark\(s.marks == 1 ? "" : "s")"
        guard let age = s.lastFixAgeSeconds else {
            return (s.connected ? "waiting for a fix from \(s.source)" : "opening \(s.source)") + ", " + counts
        }
        return String(format: "fix %.0f s ago", age.rounded(.down)) + ", " + counts
    }
}
