// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Splits a session in two at a moment.
    struct Split: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Split a session in two at a time: the entries from then on become a new session.",
            discussion: """
                The new session keeps the trip mode (and, for a device's session, the device: what `serve` \
                receives next goes to it); visits, pauses and transitions go with their time; points already \
                uploaded are not sent again. One transaction. A session being recorded is refused.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id, or a unique id prefix.") var session: String
        // Optional to the parser so that a config file may give it; `validate()` requires it.
        @Option(help: "Where to split (ISO 8601, required): entries at or after it go to the new session.")
        var at: String?
        @Option(help: "The new session's name (default: the session's name with \" (2)\").") var name: String?

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if Timestamp(iso8601: try OptionChecks.required(at, "--at <at>")) == nil {
                throw ValidationError("--at must be ISO 8601, e.g. 2026-05-01T12:00:00Z.")
            }
            if let name, name.allSatisfy(\.isWhitespace) { throw ValidationError("--name must not be empty.") }
        }

        func run() throws {
            let at = try OptionChecks.required(self.at, "--at <at>")
            let store = try global.openStore()
            defer { store.close() }
            let found = try store.resolveSession(session)
            try RecordingGuard.refuse(found, store: store, database: global.databasePath, doing: "split")
            let new = try store.split(found, at: Timestamp(iso8601: at)!, name: name)
            let before = try store.summary(of: try store.session(id: found.id)!)
            let after = try store.summary(of: new)
            print(
                "Split '\(found.name.visible)' at \(at.visible): it keeps \(counted(before.entryCount, "entry", "entries")); "
                    + "'\(new.name.visible)' (\(new.shortID)) has the \(after.entryCount) from then on.")
        }
    }
}
