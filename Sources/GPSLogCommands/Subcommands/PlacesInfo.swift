// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogGeocoding
import GPSLogModel

extension GPSLog {
    /// Where the places index is, and what it holds.
    struct PlacesInfo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Print where the places index is, how many places it holds, and where they came from.")

        @Argument(help: "An index file (default: the one places:world uses).") var index: String?

        func run() throws {
            let path = try index ?? WorldPlaces.locate()
            let started = Date()
            let geocoder =
                index == nil
                ? PlacesGeocoder(index: try PlacesIndex(path: path), name: "world") : try PlacesGeocoder(path: path)
            let loaded = Date().timeIntervalSince(started)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            print("Index: \(path.visible) (\(String(format: "%.1f", Double(size) / 1_000_000)) MB)")
            print("Places: \(geocoder.index.count)")
            print("Source: \(geocoder.index.source.visible)")
            print("Cache key: \(geocoder.cacheKey.visible)")
            print(String(format: "Loaded in %.0f ms", loaded * 1000))
            print(WorldPlaces.attribution + ".")
        }
    }
}
