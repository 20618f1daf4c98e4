// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogStore

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file.", valueName: "path"))
    var db: String?
    @Option(
        help: ArgumentHelp(
            "The config file, instead of $GPSLOG_CONFIG or $XDG_CONFIG_HOME/gpslog/config.toml.", valueName: "path"))
    var config: String?
    @Option(
        help: ArgumentHelp(
            "Settings from a profile: high-resolution, battery-saving, or [profile.NAME] of a config file.",
            valueName: "name"))
    var profile: String?

    /// The resolved database path.
    var databasePath: String { DatabaseLocation.resolve(explicit: db) }

    /// Opens (creating and migrating as needed) the store; the long work of a first open by a newer gpslog shows
    /// a progress bar on stderr.
    func openStore() throws -> Store {
        var bar: ProgressBar?
        defer { bar?.finish() }
        return try Store(path: databasePath) { progress in
            if bar?.label != progress.step {
                bar?.finish()
                bar = ProgressBar(label: progress.step, total: progress.total)
            }
            bar?.total = progress.total
            bar?.advance(to: progress.done)
        }
    }
}

// MARK: - Global options before the subcommand

extension GlobalOptions {
    /// The global options that take a value, as they are spelled on the command line.
    static let valuedNames: Set<String> = ["--db", "--config", "--profile"]

    /// `arguments` (without the program name) with the global options written before the subcommand's name moved
    /// to just after it: `--db PATH sessions --json` becomes `sessions --db PATH --json`.
    ///
    /// Why here and not in the parser: swift-argument-parser gives an option to the command that declares it, and
    /// a parent's options never reach its subcommands. Declaring `--db` on the root as well (so `gpslog --help` lists
    /// it) and moving it in front of the subcommand's own arguments keeps one declaration that every subcommand
    /// reads, `--help` right for both, and `gpslog sessions --db PATH` working as before. (`@ParentCommand` in every
    /// subcommand would need a merge of two `--db` values in each of them.) A subcommand with no database (`convert`)
    /// accepts the root's `--db` and leaves it alone. Anything that is not a recognised global option followed by a
    /// subcommand's name is left as it is, for the parser to judge.
    static func hoisted(_ arguments: [String], subcommands: Set<String>) -> [String] {
        var globals: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if valuedNames.contains(argument), index + 1 < arguments.endIndex {
                globals += arguments[index...(index + 1)]
                index += 2
            } else if let equals = argument.firstIndex(of: "="), valuedNames.contains(String(argument[..<equals])) {
                globals.append(argument)
                index += 1
            } else {
                break
            }
        }
        guard !globals.isEmpty, index < arguments.endIndex, subcommands.contains(arguments[index]) else {
            return arguments
        }
        return [arguments[index]] + globals + arguments[(index + 1)...]
    }
}
