// SPDX-License-Identifier: MIT
import ArgumentParser

/// The `gpslog` command: a session-based GPS track recorder with export tooling.
public struct GPSLog: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gpslog",
        abstract: "Record GPS tracks in named sessions, mark points, and export them to share or re-upload.",
        discussion: """
            The database is --db PATH, else $GPSLOG_DB, else $XDG_DATA_HOME/gpslog/gpslog.sqlite \
            (~/.local/share/gpslog/gpslog.sqlite). A SESSION is named by its name, its id, or a unique id prefix.
            """,
        version: "0.1.0",
        groupedSubcommands: [
            CommandGroup(name: "Recording", subcommands: [Record.self, Mark.self, Status.self, Stop.self]),
            CommandGroup(name: "Sessions", subcommands: [Sessions.self, Show.self, Rename.self, Delete.self]),
            CommandGroup(name: "Exchange", subcommands: [Export.self, Import.self, Convert.self]),
            CommandGroup(name: "Addresses", subcommands: [Geocode.self]),
            CommandGroup(name: "Sending and receiving", subcommands: [Upload.self, SendNow.self, Serve.self]),

        ]
    )

    public init() {}
}
