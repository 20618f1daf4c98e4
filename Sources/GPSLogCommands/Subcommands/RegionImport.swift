// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel

extension GPSLog {
    /// `gpslog region import`: OwnTracks' exported waypoints (those with a radius), or GeoJSON polygons.
    struct RegionImport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import regions: OwnTracks' waypoints (_type: waypoints) or GeoJSON polygons.",
            discussion: """
                The kind is told by the content. OwnTracks' waypoints with a radius become circles. A GeoJSON \
                FeatureCollection (or one Feature, or a bare geometry) of Polygon and MultiPolygon features becomes \
                polygon regions, named by the property name (else desc, else title), with OwnTracks' rid when the \
                property is there; each is checked with GEOS (valid, with an area). A bad region refuses the file: \
                nothing is imported. A region whose name or rid exists is left as it is.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The file: OwnTracks' waypoints export (JSON) or GeoJSON.") var file: String

        func run() throws {
            let contents = try RegionFile.read(path: file)
            let store = try global.openStore()
            defer { store.close() }
            let stored = try store.regions()
            let (names, ids) = (Set(stored.map(\.name)), Set(stored.map(\.regionID)))
            // A region already there by name, or by OwnTracks' rid (renamed in the app since), is left as it is.
            let new = contents.regions.filter { !names.contains($0.name) && !ids.contains($0.regionID) }
            // All or nothing: one transaction.
            try store.write { for region in new { try store.addRegion(region) } }
            var line = "Imported \(counted(new.count, "region"))"
            if new.count < contents.regions.count {
                line += "; \(contents.regions.count - new.count) already there (same name or rid)"
            }
            if contents.skipped > 0 {
                line +=
                    contents.kind == .geoJSON
                    ? "; \(contents.skipped == 1 ? "1 feature that is not a polygon" : "\(contents.skipped) features that are not polygons") skipped"
                    : "; \(counted(contents.skipped, "waypoint")) without a radius skipped"
            }
            print(line + ".")
        }
    }
}
