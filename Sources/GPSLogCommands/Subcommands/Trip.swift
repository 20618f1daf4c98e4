// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogRecording

extension GPSLog {
    /// Trips inside a running recording, as Overland's tracker screen starts and stops them.
    struct Trip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start or stop a trip inside the running recording (Overland's Start/Stop).",
            discussion: """
                A trip is a session of its own, with its mode, and the record --trip-* settings over the main ones \
                while it runs; the recording goes on in a new session after it. Without a subcommand, shows the \
                running trip.
                """,
            subcommands: [TripStart.self, TripStop.self])

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let status = try await TripControl.send(.status, database: global.databasePath)
            print(TripControl.describe(status))
        }
    }
}

/// What the trip commands share: one request to the recorder, and the answer in words.
enum TripControl {
    static func send(_ request: ControlRequest, database db: String) async throws -> RecorderStatus {
        let response = try await ControlClient.send(
            request, socketPath: ControlSocket.path(forDatabase: db), database: db)
        guard response.ok, let status = response.status else {
            throw RecordingError.recorder(response.error ?? "the recorder did not answer with its status")
        }
        return status
    }

    static func describe(_ s: RecorderStatus) -> String {
        guard let mode = s.trip else { return "No trip is running (gpslog trip start)." }
        guard s.sessionID != nil else { return "A \(mode) trip is running; its session opens at the next fix." }
        let duration = s.durationSeconds.map { ", " + Format.duration(milliseconds: Int64($0 * 1000)) } ?? ""
        return "Trip '\(s.sessionName.visible)' (\(mode))\(duration), \(Format.distance(s.distanceMeters))."
    }
}
