// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogFormats
import GPSLogModel
import GPSLogRecording
import GPSLogStore

extension GPSLog {
    /// Shows one session in detail.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a session: duration, distance, bounding box, speeds, and marks with labels and addresses.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id, or a unique id prefix.") var session: String
        @Flag(help: "Print JSON instead of text.") var json = false

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            var found = try store.resolveSession(session)
            if found.end == nil {
                // Open with no recorder (killed, maybe before its first commit): closed as `sessions` closes it.
                AbandonedSessions.close(in: store)
                found = try store.session(id: found.id) ?? found
            }
            let recording = AbandonedSessions.isRecording(found, store: store)
            let summary = try store.summary(of: found)
            if json {
                // The JSON document holds the list of marks; the text below streams them.
                var document = SessionJSON(summary, marks: try store.marks(of: found.id).all())
                document.recording = recording
                print(try JSONOutput.render(document))
                return
            }
            var lines: [(String, String)] = [
                ("Session", found.name.visible),
                ("ID", found.id),
                ("Started", Format.time(found.start)),
                ("Ended", found.end.map(Format.time) ?? (recording ? "still recording" : AbandonedSessions.unfinished)),
            ]
            if let mode = found.mode { lines.append(("Mode", mode.rawValue)) }
            if let ms = summary.durationMilliseconds { lines.append(("Duration", Format.duration(milliseconds: ms))) }
            lines.append(("Distance", Format.distance(summary.distance)))
            lines.append(
                (
                    "Entries",
                    "\(summary.entryCount) (\(counted(summary.trackPointCount, "track point")) standing for \(counted(summary.fixCount, "fix", "fixes")), \(counted(summary.markCount, "mark")), \(counted(summary.headingChangeCount, "heading change")))"
                ))
            if let a = summary.minLatitude, let b = summary.minLongitude, let c = summary.maxLatitude,
                let d = summary.maxLongitude
            {
                lines.append(
                    (
                        "Bounding box",
                        "\(Format.position(latitude: a, longitude: b)) to \(Format.position(latitude: c, longitude: d))"
                    ))
            }
            if let v = summary.maxSpeed { lines.append(("Max speed", Format.speed(v))) }
            if let v = summary.averageSpeed { lines.append(("Average speed", Format.speed(v))) }
            if let dropped = summary.droppedFixes { lines.append(("Dropped fixes", dropped.summary)) }
            let pauses = try store.trackingEvents(of: found.id).filter { $0.action == .paused }
            if !pauses.isEmpty {
                lines.append(
                    ("Paused", "\(pauses.count) times (--pause-when-stopped), first at \(Format.time(pauses[0].time))"))
            }
            let visits = try store.visits(of: found.id).count
            if visits > 0 { lines.append(("Visits", "\(visits) (gpslog visits)")) }
            let width = lines.map(\.0.count).max() ?? 0
            for (key, value) in lines {
                print(key + ":" + String(repeating: " ", count: width - key.count + 1) + value)
            }
            if summary.markCount > 0 {
                print("\nMarks:")
                try store.marks(of: found.id).forEach { mark in
                    var line =
                        "  \(Format.time(mark.time))  \(Format.position(latitude: mark.latitude, longitude: mark.longitude))"
                    line += "  \(mark.label?.visible ?? "(no label)")"
                    if let address = mark.address { line += "  - \(address.visible)" }
                    print(line)
                }
            }
        }
    }
}
