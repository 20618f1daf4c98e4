// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogRecording

extension GPSLog {
    /// Ends the running recording.
    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End the running recording cleanly.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let db = global.databasePath
            let response = try await ControlClient.send(
                .stop, socketPath: ControlSocket.path(forDatabase: db), database: db)
            guard response.ok else { throw RecordingError.recorder(response.error ?? "the recorder refused to stop") }
            // The recorder commits and closes the session after answering; wait for it to let go of the database.
            for _ in 0..<100 where RecordingLock.isHeld(database: db) {
                try await Task.sleep(for: .milliseconds(100))
            }
            print("Stopped recording '\(response.status?.sessionName.visible ?? "?")'.")
        }
    }
}
