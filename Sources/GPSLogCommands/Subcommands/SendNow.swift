// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogRecording

extension GPSLog {
    /// Asks the running recorder to send its queue now (`record --send`).
    struct SendNow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send-now", abstract: "Send the running recording's queued points now (needs `record --send`)."
        )

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print the sending status as JSON.") var json = false

        func run() async throws {
            let db = global.databasePath
            let response = try await ControlClient.send(
                .sendNow, socketPath: ControlSocket.path(forDatabase: db), database: db)
            guard response.ok, let sending = response.status?.sending else {
                throw RecordingError.recorder(response.error ?? "the recorder is not sending: start it with --send URL")
            }
            if json {
                print(try JSONOutput.render(sending))
            } else if let error = sending.lastError {
                print(
                    "Sent to \(sending.destination) up to \(sending.lastSentAt ?? "never"); \(counted(sending.queued, "point")) waiting: \(error)"
                )
            } else {
                print(
                    "Sent to \(sending.destination): \(counted(sending.sent, "point")) confirmed, \(sending.queued) waiting, last batch \(sending.lastSentAt ?? "never")."
                )
            }
        }
    }
}
