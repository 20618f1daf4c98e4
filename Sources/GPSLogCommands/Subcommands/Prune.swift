// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Retention: deletes what was recorded before a moment, in every session.
    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete everything recorded before an age (retention): --older-than 2y.",
            discussion: """
                Sessions that ended before the cut go whole; sessions that go on after it lose their entries, \
                visits, pauses and transitions before it and start at their first remaining entry. One \
                transaction; figures counted again; the space goes back to the file system. The session being \
                recorded is left alone. Ages: 12h, 30d, 8w, 6mo, 2y (months and years by the calendar, in UTC).
                """)

        @OptionGroup var global: GlobalOptions
        // Optional to the parser so that a config file may give it; `validate()` requires it.
        @Option(help: ArgumentHelp("Delete what is older than this (required).", valueName: "age"))
        var olderThan: AgeOption?
        @Flag(help: "Say what would be deleted; delete nothing.") var dryRun = false
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            _ = try OptionChecks.required(olderThan, "--older-than <age>")
        }

        func run() throws {
            let cut = try OptionChecks.required(olderThan, "--older-than <age>").cut()
            let store = try global.openStore()
            defer { store.close() }
            let sparing = Set(try RecordingGuard.recorded(in: store, database: global.databasePath).map(\.key))
            let planned = try store.prune(before: cut, sparing: sparing, dryRun: true)
            for session in planned.spared {
                print("Left alone: '\(session.name.visible)' (\(session.shortID)), being recorded.")
            }
            let what = describe(planned, cut)
            if dryRun || planned.deleted.isEmpty && planned.trimmed.isEmpty {
                print(
                    planned.deleted.isEmpty && planned.trimmed.isEmpty
                        ? "Nothing was recorded before \(Format.time(cut))." : "Would delete \(what).")
                if dryRun { list(planned) }
                return
            }
            guard try CleaningText.confirm("Delete \(what)?", yes: yes) else { return }
            let done = try store.prune(before: cut, sparing: sparing)
            print("Deleted \(describe(done, cut)).")
            CleaningText.printSpace(try store.giveSpaceBack())
        }

        private func describe(_ r: PruneReport, _ cut: Timestamp) -> String {
            var parts: [String] = []
            if !r.deleted.isEmpty { parts.append(CleaningText.count(r.deleted.count, "session") + " whole") }
            if !r.trimmed.isEmpty {
                parts.append("the older entries of " + CleaningText.count(r.trimmed.count, "session"))
            }
            return parts.joined(separator: " and ") + " (" + CleaningText.count(r.entries, "entry", "entries")
                + ", recorded before \(Format.time(cut)))"
        }

        private func list(_ r: PruneReport) {
            for (session, entries) in r.deleted {
                print(
                    "  whole: '\(session.name.visible)' (\(session.shortID)), \(counted(entries, "entry", "entries"))")
            }
            for (session, entries) in r.trimmed {
                print("  \(entries) older entries of '\(session.name.visible)' (\(session.shortID))")
            }
        }
    }
}
