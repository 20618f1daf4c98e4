// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Renames a session.
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a session.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id, or a unique id prefix.") var session: String
        @Argument(help: "The new name.") var name: String

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            guard !name.allSatisfy(\.isWhitespace) else { throw ValidationError("The new name must not be empty.") }
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let found = try store.resolveSession(session)
            try store.renameSession(id: found.id, to: name)
            print("Renamed \(found.shortID) from '\(found.name.visible)' to '\(name.visible)'.")
        }
    }
}
