// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Merges one session into another.
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge session B into session A: A gets B's entries and records, and B is deleted.",
            discussion: """
                A keeps its name and id and spans both; B's first track point starts a new segment (no line is \
                drawn across the gap). One transaction. A session being recorded is refused.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Session A, which stays: its name, id, or a unique id prefix.") var session: String
        @Argument(help: "Session B, merged into A and deleted.") var other: String

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let a = try store.resolveSession(session)
            let b = try store.resolveSession(other)
            for s in [a, b] {
                try RecordingGuard.refuse(s, store: store, database: global.databasePath, doing: "merge")
            }
            let merged = try store.merge(b, into: a)
            let summary = try store.summary(of: merged)
            print(
                "Merged '\(b.name.visible)' (\(b.shortID)) into '\(a.name.visible)' (\(a.shortID)): "
                    + "\(counted(summary.entryCount, "entry", "entries")), \(Format.time(merged.start)) to "
                    + (merged.end.map(Format.time) ?? "open") + ".")
            CleaningText.printSpace(try store.giveSpaceBack())
        }
    }
}
