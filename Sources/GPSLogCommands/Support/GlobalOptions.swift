// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogStore

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file.", valueName: "path"))
    var db: String?

    /// The resolved database path.
    var databasePath: String { DatabaseLocation.resolve(explicit: db) }

    /// Opens (creating and migrating as needed) the store.
    func openStore() throws -> Store {
        try Store(path: databasePath)
    }
}
