// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Checks the database: every session's kept figures against its entries, then SQLite's integrity check.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count every session again and repair kept figures that differ; run SQLite's integrity_check.",
            discussion: """
                `sessions` and `show` read figures kept as entries are written (a write through the Entries view, \
                with sqlite3, has its session counted again). Edits of SessionSummaries or EntryRows made outside \
                gpslog can leave them wrong: this counts each session from its entries, writes the count where it \
                differs, and says which. It compares the history map's kept visits with each session's track and \
                draws each kept tile again, dropping what differs (drawn again when the map is next shown). Exits \
                with status 1 when SQLite finds the file damaged.
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(
            help:
                "Afterwards, rewrite the file whole (VACUUM) so that it takes no more space than its rows, and give space back by itself after later cleanings."
        )
        var vacuum = false

        func run() throws {
            let store: Store
            do { store = try global.openStore() } catch { throw Self.damaged(global.databasePath) ?? error }
            defer { store.close() }
            let progress = ProgressBar(label: "Counting")
            let check: SummaryCheck
            do {
                check = try store.checkSummaries { done, total in
                    progress.total = total
                    progress.advance(to: done)
                }
            } catch {
                progress.finish()
                throw Self.damaged(store.path) ?? error
            }
            progress.finish()
            for repair in check.repairs {
                let what =
                    repair.fields.isEmpty
                    ? "its figures were not kept" : repair.fields.joined(separator: ", ") + " differed"
                print("Repaired '\(repair.session.name.visible)' (\(repair.session.shortID)): \(what).")
            }
            for session in check.unsettled {
                print(
                    "Not counted: '\(session.name.visible)' (\(session.shortID)) was written to during each of 10 counts (is it being recorded?); check it again when it has finished."
                )
            }
            if check.orphanRows > 0 { print("Removed the kept figures of \(check.orphanRows) deleted sessions.") }
            let verdict = check.repairs.isEmpty ? "every kept figure was right" : "\(check.repairs.count) repaired"
            print("\(counted(check.sessions, "session")), \(counted(check.entries, "entry", "entries")): \(verdict).")
            let history = try store.checkHistory()
            for session in history.sessionsDiffering {
                print(
                    "Repaired the history map of '\(session.name.visible)' (\(session.shortID)): its kept visits did not match its track; counted again when the map is next drawn."
                )
            }
            if history.tilesDiffering > 0 {
                print(
                    "Dropped \(counted(history.tilesDiffering, "kept history tile")) that differed from their drawing.")
            }
            print(
                "History map: \(counted(history.sessions, "session")) and \(counted(history.tiles, "kept tile")) compared: "
                    + (history.sessionsDiffering.isEmpty && history.tilesDiffering == 0
                        ? "all right." : "repaired."))
            let problems = try store.integrityProblems()
            guard problems.isEmpty else { throw CommandError.damaged(path: store.path, problems: problems) }
            print("integrity_check: ok")
            if vacuum {
                let before = Self.size(store.path)
                try store.vacuumIntoIncremental()
                let after = Self.size(store.path)
                print(
                    String(
                        format: "Vacuumed: %.1f MB, was %.1f MB; later cleanings give their space back by themselves.",
                        Double(after) / 1_000_000, Double(before) / 1_000_000))
            }
        }

        /// What SQLite's integrity check finds wrong with the file, when it finds anything: a damaged page fails the
        /// open or the count with SQLite's bare "malformed", and the check says where.
        static func damaged(_ path: String) -> CommandError? {
            guard let problems = Store.integrityProblems(ofFileAt: path), !problems.isEmpty else { return nil }
            return .damaged(path: path, problems: problems)
        }

        /// The file's size with its WAL.
        static func size(_ path: String) -> Int64 {
            [path, path + "-wal"].reduce(0) {
                $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int64) ?? 0)
            }
        }
    }
}
