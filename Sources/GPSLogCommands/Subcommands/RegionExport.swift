// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogFormats
import GPSLogImportExport
import GPSLogPipeline

extension GPSLog {
    /// `gpslog region export`: the regions as OwnTracks' waypoints export, for its apps to import.
    struct RegionExport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Print the regions as OwnTracks' waypoints export (_type: waypoints).",
            discussion: """
                OwnTracks has only circular regions: a polygon region is written as the smallest circle that holds \
                it (GEOS's minimum bounding circle), so the phone's region may be larger than the polygon. \
                `gpslog region import` reads the file back (as circles).
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let circles = try store.regions().map { region in
                guard region.isPolygon else { return region }
                // OwnTracks knows only circles: a polygon goes as its enclosing circle.
                let circle = try PolygonOutline(region).enclosingCircle()
                var asCircle = region
                (asCircle.latitude, asCircle.longitude, asCircle.radius) = (
                    circle.latitude, circle.longitude, circle.radius
                )
                asCircle.outline = nil
                return asCircle
            }
            print(String(decoding: try OwnTracksWaypoints.export(circles), as: UTF8.self))
        }
    }
}
