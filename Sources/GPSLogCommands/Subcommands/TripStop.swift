// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogRecording

extension GPSLog {
    /// `gpslog trip stop`: Overland's Stop button.
    struct TripStop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop", abstract: "End the running trip; the recording goes on in a new session.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let before = try await TripControl.send(.status, database: global.databasePath)
            _ = try await TripControl.send(.tripStop, database: global.databasePath)
            print("Stopped: \(TripControl.describe(before))")
        }
    }
}
