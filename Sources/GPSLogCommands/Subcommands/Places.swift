// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogGeocoding

extension GPSLog {
    /// The places index behind the default geocoder, places:world.
    struct Places: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or build the places index of the default geocoder (places:world).",
            discussion: """
                places:world answers the nearest populated place ("Lelystad, Flevoland, NL"; "12 km from Urk, \
                Flevoland, NL" beyond 2 km; nothing beyond 50 km) from an index of GeoNames' cities1000 that `make` \
                builds and `make install` installs as PREFIX/share/gpslog/\(WorldPlaces.fileName) (or \
                $\(WorldPlaces.environmentVariable)). \(WorldPlaces.attribution).
                """,
            subcommands: [PlacesInfo.self, PlacesBuild.self],
            defaultSubcommand: PlacesInfo.self)
    }
}
