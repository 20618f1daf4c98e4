// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline

extension GPSLog {
    /// `gpslog region list`.
    struct RegionList: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the regions.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON instead of text.") var json = false

        /// A circle: its centre and radius; a polygon: a point inside it, the radius of the circle around that point
        /// that holds it, its corners and its area (square metres).
        struct RegionJSON: Encodable {
            var name: String
            var kind: String
            var latitude: Double
            var longitude: Double
            var radius: Double
            var vertices: Int?
            var area: Double?
            var rid: String
            var created: String
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let regions = try store.regions()
            let outlines = try regions.map { $0.isPolygon ? try PolygonOutline($0) : nil }
            if json {
                print(
                    try JSONOutput.render(
                        zip(regions, outlines).map { r, outline in
                            RegionJSON(
                                name: r.name, kind: r.isPolygon ? "polygon" : "circle", latitude: r.latitude,
                                longitude: r.longitude, radius: r.radius, vertices: outline?.vertexCount,
                                area: outline.map { ($0.area * 10).rounded() / 10 }, rid: r.regionID,
                                created: r.created.iso8601())
                        }))
                return
            }
            guard !regions.isEmpty else {
                print("No regions (gpslog region add NAME --lat LAT --lon LON --radius METRES, or region import FILE).")
                return
            }
            for (r, outline) in zip(regions, outlines) {
                let position = Format.position(latitude: r.latitude, longitude: r.longitude)
                let shape =
                    outline.map { "polygon of \($0.vertexCount) vertices, \(Format.area($0.area))" }
                    ?? "radius \(Format.distance(r.radius))"
                print("\(r.name.visible)  \(position)  \(shape)  rid \(r.regionID.visible)")
            }
        }
    }
}
