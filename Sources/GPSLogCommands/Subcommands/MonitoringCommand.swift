// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogRecording

extension GPSLog {
    /// Switches the running recorder's monitoring mode, as OwnTracks' mode button does.
    struct Monitoring: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Show or switch the running recorder's monitoring mode (OwnTracks' quiet, manual, significant, move).",
            discussion: """
                `gpslog monitoring move` switches at once; the mode's rules measure from the last entry. `interval` \
                goes back to GPS Log's interval sampling. Without a mode, prints the one in use.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The mode to switch to.", valueName: "quiet|manual|significant|move|interval"))
        var mode: String?

        func run() async throws {
            let db = global.databasePath
            let response = try await ControlClient.send(
                .monitoring(mode: mode), socketPath: ControlSocket.path(forDatabase: db), database: db)
            guard response.ok, let status = response.status else {
                throw RecordingError.recorder(response.error ?? "the recorder did not answer with its status")
            }
            print(status.monitoring ?? SessionRecorder.intervalSampling)
        }
    }
}
