// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogGeocoding
import GPSLogModel

/// The `gpslog` command: a session-based GPS track recorder with export tooling.
public struct GPSLog: AsyncParsableCommand {
    /// The command's name, help text, version and subcommands, in the groups `gpslog --help` shows them.
    public static let configuration = CommandConfiguration(
        commandName: "gpslog",
        abstract: "Record GPS tracks in named sessions, mark points, and export them to share or re-upload.",
        discussion: """
            The database is --db PATH, else $GPSLOG_DB, else $XDG_DATA_HOME/gpslog/gpslog.sqlite \
            (~/.local/share/gpslog/gpslog.sqlite). A SESSION is named by its name, its id, or a unique id prefix. \
            Settings may come from $XDG_CONFIG_HOME/gpslog/config.toml and /etc/gpslog/config.toml (see `gpslog \
            config`): a flag wins over the environment, which wins over the user's file, then the system's.
            """,
        // The attribution GeoNames' CC BY licence asks for travels with the version (and the README).
        version: "0.1.0\n\(WorldPlaces.attribution).",
        groupedSubcommands: [
            CommandGroup(
                name: "Recording",
                subcommands: [
                    Record.self, Mark.self, Status.self, Stop.self, Monitoring.self, Trip.self, Tag.self,
                ]),
            CommandGroup(
                name: "Sessions",
                subcommands: [
                    Sessions.self, Show.self, Last.self, Visits.self, Timeline.self, VisitCommand.self, Stats.self,
                    Events.self, Rename.self, Delete.self,
                    Split.self,
                    Merge.self,
                    Prune.self,
                ]),
            CommandGroup(name: "Regions", subcommands: [Region.self]),
            CommandGroup(name: "Exchange", subcommands: [Export.self, Plot.self, Import.self, Convert.self]),
            CommandGroup(name: "Addresses", subcommands: [Geocode.self, Places.self]),
            CommandGroup(
                name: "Sending and receiving",
                subcommands: [Upload.self, SendNow.self, Serve.self, Devices.self, Sync.self]),
            CommandGroup(
                name: "People and devices", subcommands: [UserCommand.self, DeviceCommand.self, ShareCommand.self]),
            CommandGroup(name: "Settings", subcommands: [Config.self]),
            CommandGroup(name: "Database", subcommands: [Check.self]),
        ]
    )

    /// Declared here too so that `gpslog --help` lists `--db`; `main` hands it to the subcommand (see `hoisted`).
    @OptionGroup var global: GlobalOptions

    /// An empty command, as ArgumentParser requires; parsing the command line fills in its options.
    public init() {}

    /// Runs the command line. A domain error's words are escaped on the way out (see `visibleKeepingLines`): they
    /// name sessions, files and answers that came from outside.
    public static func main() async {
        do {
            // The command line alone is parsed; the config files' and profiles' settings, checked and resolved, are
            // then set on the command's options in their own types, and its checks run (see `ConfiguredSettings`).
            let arguments = GlobalOptions.hoisted(
                Array(CommandLine.arguments.dropFirst()), subcommands: subcommandNames)
            var command = try ConfiguredSettings(arguments).command(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as LocalizedError {
            exit(withError: EscapedError(message: (error.errorDescription ?? "\(error)").visibleKeepingLines))
        } catch {
            exit(withError: error)
        }
    }
}

/// An error whose words were made safe to print.
struct EscapedError: LocalizedError, CustomStringConvertible {
    var message: String
    var errorDescription: String? { message }
    var description: String { message }
}
