// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel

extension GPSLog {
    /// `gpslog region list`.
    struct RegionList: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the regions.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON instead of text.") var json = false

        struct RegionJSON: Encodable {
            var name: String
            var latitude: Double
            var longitude: Double
            var radius: Double
            var rid: String
            var created: String
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let regions = try store.regions()
            if json {
                print(
                    try JSONOutput.render(
                        regions.map {
                            RegionJSON(
                                name: $0.name, latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius,
                                rid: $0.regionID, created: $0.created.iso8601())
                        }))
                return
            }
            guard !regions.isEmpty else {
                print("No regions (gpslog region add NAME --lat LAT --lon LON --radius METRES).")
                return
            }
            for r in regions {
                print(
                    "\(r.name.visible)  \(Format.position(latitude: r.latitude, longitude: r.longitude))  radius \(Format.distance(r.radius))  rid \(r.regionID.visible)"
                )
            }
        }
    }
}
