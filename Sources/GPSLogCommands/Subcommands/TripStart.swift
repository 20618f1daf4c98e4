// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogRecording

extension GPSLog {
    /// `gpslog trip start`: Overland's Start button.
    struct TripStart: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start", abstract: "Start a trip: a session of its own from the next fix, with its mode.")

        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("Trip mode (default: record's --mode, else bicycle).", valueName: "mode"))
        var mode: TripMode?
        @Option(help: "Trip name (default: the mode and the start time, e.g. 'walk 2026-05-01 08:00').")
        var name: String?

        func run() async throws {
            let status = try await TripControl.send(
                .tripStart(mode: mode?.rawValue, name: name), database: global.databasePath)
            print("Started a \(status.trip ?? "?") trip.")
        }
    }
}
