// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogFormats
import GPSLogModel

extension GPSLog {
    /// `gpslog region import`: OwnTracks' exported waypoints, the ones with a radius.
    struct RegionImport: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import OwnTracks' waypoints (its export, _type: waypoints): those with a radius become regions.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The waypoints file (JSON).") var file: String

        /// OwnTracks' export is a few kilobytes; more is not a waypoints file.
        static let maxSize = 4 << 20

        func run() throws {
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            if let size = attributes?[.size] as? Int, size > Self.maxSize {
                throw CommandError.file(path: file, reason: "larger than 4 MB: not an OwnTracks waypoints file")
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandError.file(path: file, reason: "cannot read it")
            }
            let (regions, withoutRadius) = try OwnTracksWaypoints.regions(data, source: file)
            let store = try global.openStore()
            defer { store.close() }
            let stored = try store.regions()
            let (names, ids) = (Set(stored.map(\.name)), Set(stored.map(\.regionID)))
            // A region already there by name, or by OwnTracks' rid (renamed in the app since), is left as it is.
            let new = regions.filter { !names.contains($0.name) && !ids.contains($0.regionID) }
            // All or nothing: one transaction.
            try store.write { for region in new { try store.addRegion(region) } }
            var line = "Imported \(new.count) regions"
            if new.count < regions.count { line += "; \(regions.count - new.count) already there (same name or rid)" }
            if withoutRadius > 0 { line += "; \(withoutRadius) waypoints without a radius skipped" }
            print(line + ".")
        }
    }
}
