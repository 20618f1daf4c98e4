// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Lists the places a session stayed at (`record --visits`).
    struct Visits: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List a session's visits: place, arrival, departure, duration, name, address and id (`record --visits`)."
        )

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id, or a unique id prefix.") var session: String
        @Flag(help: "Print JSON instead of text.") var json = false

        /// One visit as `--json` prints it.
        struct VisitJSON: Encodable {
            /// The id `gpslog visit rename` and `visit delete` take.
            var id: Int64?
            /// The name given to the place (`gpslog visit rename`).
            var name: String?
            var latitude: Double
            var longitude: Double
            var horizontalAccuracy: Double
            var arrival: String
            var departure: String?
            var durationSeconds: Double?
            var address: String?

            init(_ v: Visit) {
                id = v.key
                name = v.name
                latitude = v.latitude
                longitude = v.longitude
                horizontalAccuracy = v.horizontalAccuracy
                arrival = v.arrival.iso8601()
                departure = v.departure?.iso8601()
                durationSeconds = v.departure.map { Double($0.milliseconds - v.arrival.milliseconds) / 1000 }
                address = v.address
            }
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let found = try store.resolveSession(session)
            let visits = try store.visits(of: found.id)
            if json {
                print(try JSONOutput.render(visits.map(VisitJSON.init)))
                return
            }
            guard !visits.isEmpty else {
                print("No visits in '\(found.name.visible)' (record with --visits to keep them).")
                return
            }
            for v in visits {
                let stay =
                    v.departure.map {
                        "to \(Format.time($0)) (\(Format.duration(milliseconds: $0.milliseconds - v.arrival.milliseconds)))"
                    } ?? "(still there)"
                var line =
                    "\(Format.time(v.arrival)) \(stay)  \(Format.position(latitude: v.latitude, longitude: v.longitude))"
                line += String(format: " ±%.0f m", v.horizontalAccuracy)
                if let name = v.name { line += "  \(name.visible)" }
                if let address = v.address { line += "  \(address.visible)" }
                if let key = v.key { line += "  (visit \(key))" }
                print(line)
            }
        }
    }
}
