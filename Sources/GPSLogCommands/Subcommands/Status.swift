// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogRecording

extension GPSLog {
    /// Shows what the running recorder sees, as Overland's tracker screen does.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Show the running recording: fix age, position, accuracy, speed, entries, bad sentences, duration, distance."
        )

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let db = global.databasePath
            let response = try await ControlClient.send(
                .status, socketPath: ControlSocket.path(forDatabase: db), database: db)
            guard response.ok, let s = response.status else {
                throw RecordingError.recorder(response.error ?? "no status")
            }
            if json {
                print(try JSONOutput.render(s))
                return
            }
            print(StatusText.render(s))
        }
    }
}

/// `gpslog status` and `gpslog stop` as text.
enum StatusText {
    static func render(_ s: RecorderStatus) -> String {
        var lines: [(String, String)] = [
            (
                "Recording",
                "\(s.sessionName)\(s.sessionID.map { " (\($0.prefix(8)))" } ?? " (waiting for the first fix)")"
            ),
            ("Source", "\(s.source)\(s.connected ? "" : " (not connected)"), pid \(s.pid)"),
        ]
        if let state = s.sourceState { lines.append(("Connection", state.text)) }
        if let age = s.lastFixAgeSeconds, let t = s.lastFixTime {
            lines.append(("Age", String(format: "%.1f s (fix time %@)", age, t)))
        } else {
            lines.append(("Age", "no fix yet"))
        }
        if let lat = s.latitude, let lon = s.longitude {
            var loc = Format.position(latitude: lat, longitude: lon)
            if let acc = s.horizontalAccuracy { loc += String(format: " ±%.0f m", acc) }
            if let alt = s.altitude { loc += String(format: ", %.0f m altitude", alt) }
            lines.append(("Location", loc))
        }
        if let v = s.speed { lines.append(("Speed", Format.speed(v))) }
        lines.append(
            ("Entries", "\(s.entries) (\(counted(s.marks, "mark"))) from \(counted(s.fixesReceived, "fix", "fixes"))"))
        lines.append(("Monitoring", s.monitoring.map { "\($0) (OwnTracks)" } ?? "interval sampling (GPS Log)"))
        if let regions = s.regions {
            lines.append(
                (
                    "Regions",
                    regions.isEmpty ? "in none" : "in " + regions.map { "'\($0.visible)'" }.joined(separator: ", ")
                ))
        }
        if let tag = s.tag { lines.append(("Tag", tag.visible)) }
        if let trip = s.trip { lines.append(("Trip", "\(trip): the session, duration and distance are the trip's")) }
        if let since = s.pausedSince { lines.append(("Paused", "since \(since) (resumes outside the geofence)")) }
        if let since = s.visitSince { lines.append(("Visit", "here since \(since)")) }
        lines.append(("Bad sentences", "\(s.badSentences)"))
        if let dropped = s.droppedFixes { lines.append(("Dropped fixes", dropped.summary)) }
        if let n = s.sessions, n > 1 { lines.append(("Sessions", "\(n) recorded by this run (--split, trips)")) }
        if let d = s.durationSeconds { lines.append(("Duration", Format.duration(milliseconds: Int64(d * 1000)))) }
        lines.append(("Distance", Format.distance(s.distanceMeters)))
        if let a = s.addresses {
            var text =
                "\(counted(a.addressed, "entry", "entries")) addressed by \(a.provider): \(counted(a.cells, "cell")), \(counted(a.requests, "request")), \(counted(a.cacheHits, "cache hit")), \(a.negatives) without an address, \(counted(a.failures, "failure"))"
            if a.cells > 0 { text += String(format: ", %.2f requests per cell", Double(a.requests) / Double(a.cells)) }
            if let until = a.pausedUntil { text += "; paused until \(until)" }
            if let blocked = a.blocked { text += "; blocked: \(blocked)" }
            lines.append(("Addresses", text))
        }
        if let sending = s.sending {
            var text =
                "\(sending.queued) queued for \(sending.destination), \(sending.sent) sent, last batch \(sending.lastSentAt ?? "never")"
            if sending.records > 0 { text += ", \(counted(sending.records, "record"))" }
            if let connected = sending.connected { text += connected ? "; connected" : "; not connected" }
            if let mode = sending.loggingMode, mode != "all" {
                text += "; \(mode) only: \(sending.skipped) skipped"
            }
            if let error = sending.lastError { text += "; last attempt failed: \(error)" }
            lines.append(("Sending", text))
        }
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { $0.0 + ":" + String(repeating: " ", count: width - $0.0.count + 1) + $0.1 }.joined(
            separator: "\n")
    }
}
