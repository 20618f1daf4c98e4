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
            abstract: "List sessions: name, short id, start, end (or \"recording\"), entries, marks, distance.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON instead of a table.") var json = false

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            for session in try Recovery.closeAbandonedSessions(in: store) {
                FileHandle.standardError.write(
                    Data(
                        "note: closed session '\(session.name.visible)' (\(session.shortID)), left open by a recorder that stopped abruptly, at its last entry (\(session.end.map(Format.time) ?? "?")).\n"
                            .utf8))
            }
            let summaries = try store.summaries()
            if json {
                print(try JSONOutput.render(summaries.map { SessionJSON($0) }))
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
                    s.session.end.map(Format.time) ?? "recording", String(s.entryCount), String(s.markCount),
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
