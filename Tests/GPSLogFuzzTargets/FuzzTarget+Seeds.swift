// SPDX-License-Identifier: MIT
import Foundation

extension FuzzTarget {
    /// Where this target's inputs come from besides libFuzzer's mutations, as (folder, file-name suffix) pairs:
    /// folders of the package (`Tests/Fixtures/fuzz/<target>/seeds` and `regressions`, `Exports/`) and of the real
    /// data beside the checkout (`../shared/data`), which is read where it lies and never copied (some of it is GPL
    /// or AGPL).
    var seedFolders: [(folder: String, suffix: String)] {
        let own = [("Tests/Fixtures/fuzz/\(rawValue)/seeds", ""), ("Tests/Fixtures/fuzz/\(rawValue)/regressions", "")]
        let others: [(String, String)] =
            switch self {
            case .nmea: [("../shared/data/nmea", ".log"), ("../shared/data/nmea", ".nmea")]
            case .gpx: [("Exports", ".gpx"), ("../shared/data/gpx", ".gpx"), ("../shared/data/gpx/peers", ".gpx")]
            case .sessionXML: [("Exports", ".xml")]
            case .detect:
                [("Exports", ""), ("../shared/data/payloads", ".json"), ("../shared/data/gpx", ".gpx")]
                    + [("../shared/data/nmea", ".log"), ("../shared/data/schemas", ".xsd")]
            case .overland: [("Exports", ".overland.json"), ("../shared/data/payloads", ".json")]
            case .ownTracks: []
            case .rec: [("Exports", ".rec"), ("Exports", ".jsonl"), ("../shared/data/payloads", ".rec")]
            case .control, .waypoints, .google, .tcx: []
            case .kml: [("Exports", ".kml")]
            }
        return own + others
    }

    /// The seed files that exist, relative to the package at `root` (sorted; README and SOURCES files left out).
    /// `sharedData` stands for `../shared/data` when given (the tests' `GPSLOG_SHARED_DATA`).
    public func seedFiles(packageRoot root: String, sharedData: String? = nil) -> [String] {
        seedFolders.flatMap { folder, suffix -> [String] in
            var base = URL(fileURLWithPath: root).appendingPathComponent(folder)
            if let sharedData, folder.hasPrefix("../shared/data") {
                base = URL(fileURLWithPath: sharedData + folder.dropFirst("../shared/data".count))
            }
            let dir = base.standardizedFileURL.path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            return names.filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
                .map { "\(dir)/\($0)" }
        }
    }
}
