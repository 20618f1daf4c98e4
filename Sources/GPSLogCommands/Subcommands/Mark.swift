// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogStore

extension GPSLog {
    /// Marks a point: the freshest fix of the running recording, or a given position in any session.
    struct Mark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark the freshest fix of the running recording (or, with --session, a given position).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "A label for the mark.") var label: String?
        @Option(help: "Add a manual mark to this session instead (with --lat and --lon).") var session: String?
        @Option(help: "Latitude of a manual mark, degrees north.") var lat: Double?
        @Option(help: "Longitude of a manual mark, degrees east.") var lon: Double?
        @Option(help: "Time of a manual mark (ISO 8601; default now).") var time: String?
        @Flag(help: "The label names a point of interest (sent as OwnTracks' poi).") var poi = false
        @Flag(help: "Print the mark as JSON.") var json = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if poi && (label ?? "").isEmpty { throw ValidationError("--poi needs a label: what the place is.") }
            if session == nil && (lat != nil || lon != nil || time != nil) {
                throw ValidationError("--lat, --lon and --time go with --session.")
            }
            if session != nil {
                guard let lat, let lon else { throw ValidationError("A manual mark needs --lat and --lon.") }
                guard abs(lat) <= 90, abs(lon) <= 180 else {
                    throw ValidationError("--lat must be within ±90 and --lon within ±180.")
                }
                if let time, Timestamp(iso8601: time) == nil {
                    throw ValidationError("--time must be ISO 8601, e.g. 2026-05-01T12:00:00Z.")
                }
            }
        }

        func run() async throws {
            let info: MarkInfo
            if let session, let lat, let lon {
                info = try manualMark(session: session, lat: lat, lon: lon)
            } else {
                let db = global.databasePath
                let response = try await ControlClient.send(
                    .mark(label: label, poi: poi), socketPath: ControlSocket.path(forDatabase: db), database: db)
                guard response.ok, let mark = response.mark else {
                    throw RecordingError.recorder(response.error ?? "the recorder refused the mark")
                }
                info = mark
            }
            if json {
                print(try JSONOutput.render(info))
            } else {
                let position = Format.position(latitude: info.latitude, longitude: info.longitude)
                print(
                    "Marked \(position) at \(info.time)\(info.label.map { " '\($0.visible)'" } ?? "") (entry \(info.entryID))."
                )
            }
        }

        private func manualMark(session query: String, lat: Double, lon: Double) throws -> MarkInfo {
            let store = try global.openStore()
            defer { store.close() }
            let target = try store.resolveSession(query)
            let when = time.flatMap { Timestamp(iso8601: $0) } ?? Timestamp(seconds: Date().timeIntervalSince1970)
            var rng = SystemRandomNumberGenerator()
            let entry = Entry(
                id: Identifier.uuidV7(time: when, using: &rng), latitude: lat, longitude: lon, time: when, marked: true,
                label: label.flatMap { $0.isEmpty ? nil : $0 }, isPOI: poi)
            try store.append([entry], to: target.id)
            return MarkInfo(
                entryID: entry.id, sessionID: target.id, time: when.iso8601(), latitude: lat, longitude: lon,
                label: entry.label)
        }
    }
}
