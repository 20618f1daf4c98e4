// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel

extension GPSLog {
    /// `gpslog region add`: a circular region, as an OwnTracks waypoint with a radius.
    struct RegionAdd: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a circular region.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The region's name (OwnTracks' desc).") var name: String
        @Option(help: "Latitude of the centre, degrees north.") var lat: Double
        @Option(help: "Longitude of the centre, degrees east.") var lon: Double
        @Option(help: "Radius in metres.") var radius: Double

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if name.trimmedWhitespace.isEmpty { throw ValidationError("The region's name must not be empty.") }
            if name.count > TextLimit.label {
                throw ValidationError("The region's name is longer than \(TextLimit.label) characters.")
            }
            guard Geo.isValidPosition(latitude: lat, longitude: lon) else {
                throw ValidationError("--lat must be from -90 to 90 and --lon from -180 to 180.")
            }
            if !(radius > 0 && radius <= 1_000_000) {
                throw ValidationError("--radius must be more than 0 and at most 1000000 metres.")
            }
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            // OwnTracks' rid: a short random id that stays with the region.
            let rid = String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(8))
            let region = try store.addRegion(
                GPSLogModel.Region(
                    name: name.trimmedWhitespace, latitude: lat, longitude: lon, radius: radius, regionID: rid,
                    created: Timestamp(seconds: Date().timeIntervalSince1970)))
            print(
                "Added region '\(region.name.visible)' (\(rid)): \(Format.position(latitude: lat, longitude: lon)), radius \(Format.distance(radius))."
            )
        }
    }
}
