// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Lists a session's region transitions.
    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a session's region transitions: region, enter or leave, time and place (`gpslog region`).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id, or a unique id prefix.") var session: String
        @Flag(help: "Print JSON instead of text.") var json = false

        struct TransitionJSON: Encodable {
            var region: String
            var rid: String?
            var event: String
            var time: String
            var latitude: Double
            var longitude: Double
            var horizontalAccuracy: Double?
            /// OwnTracks' `t`: `c` a circular region, `b` a beacon, `l` a location; none when a phone did not say.
            var trigger: String?
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let found = try store.resolveSession(session)
            // Transitions `serve` received name the phone's regions, whose rid or trigger may be missing.
            let transitions = try store.transitions(of: found.id)
            if json {
                print(
                    try JSONOutput.render(
                        transitions.map {
                            TransitionJSON(
                                region: $0.region.name, rid: $0.region.regionID.isEmpty ? nil : $0.region.regionID,
                                event: $0.event.rawValue,
                                time: $0.time.iso8601(), latitude: $0.latitude, longitude: $0.longitude,
                                horizontalAccuracy: $0.horizontalAccuracy, trigger: $0.trigger?.rawValue)
                        }))
                return
            }
            guard !transitions.isEmpty else {
                print("No region transitions in '\(found.name.visible)'.")
                return
            }
            for t in transitions {
                print(
                    "\(Format.time(t.time))  \(t.event == .enter ? "enter" : "leave")  \(t.region.name.visible)  \(Format.position(latitude: t.latitude, longitude: t.longitude))"
                )
            }
        }
    }
}
