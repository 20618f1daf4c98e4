// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogRecording
import GPSLogStore

extension GPSLog {
    /// Lists the sessions in the database.
    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List sessions: name, short id, start, end (or \"recording\"), entries, marks, distance.",
            discussion: "Newest first, as the web view lists them; --oldest-first for the other way.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON instead of a table.") var json = false
        @Flag(help: "List the oldest session first (the newest comes first otherwise).") var oldestFirst = false

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            AbandonedSessions.close(in: store)
            // The store lists oldest first (start, then key); newest first is that list reversed.
            let stored = try store.summaries()
            let summaries = oldestFirst ? stored : Array(stored.reversed())
            let recording = Set(
                summaries.map(\.session).filter { AbandonedSessions.isRecording($0, store: store) }.map(\.id))
            if json {
                print(
                    try JSONOutput.render(
                        summaries.map {
                            var json = SessionJSON($0)
                            json.recording = recording.contains($0.session.id)
                            return json
                        }))
                return
            }
            guard !summaries.isEmpty else {
                print(
                    "No sessions in \(store.path) yet. Record one with `gpslog record --name NAME`, or import a file.")
                return
            }
            let rows = summaries.map { s in
                [
                    s.session.name, s.session.shortID, Format.time(s.session.start),
                    s.session.end.map(Format.time) ?? (recording.contains(s.session.id) ? "recording" : "unfinished"),
                    String(s.entryCount), String(s.markCount),
                    Format.distance(s.distance),
                ]
            }
            print(
                Format.table(
                    header: ["NAME", "ID", "START (UTC)", "END (UTC)", "ENTRIES", "MARKS", "DISTANCE"], rows: rows,
                    rightAligned: [4, 5, 6]))
        }
    }
}
