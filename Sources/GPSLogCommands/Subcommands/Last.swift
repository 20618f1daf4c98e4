// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Shows the newest session, named on the first line, without having to look up its name or id.
    struct Last: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the newest session (the one started last): its name and id, then what `show` shows.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON instead of text (as `show --json`).") var json = false

        func run() throws {
            let store = try global.openStore()
            // Oldest first: the newest is the last.
            let newest = try store.sessions().last
            store.close()
            guard let newest else {
                throw CommandError.refused("there is no session yet: record or import one first.")
            }
            if !json { print("Newest session: '\(newest.name.visible)' (\(newest.id))") }
            var show = try Show.parse([newest.id] + (json ? ["--json"] : []))
            show.global = global
            try show.run()
        }
    }
}
