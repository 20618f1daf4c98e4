// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// Regions: circles (OwnTracks') and polygons (GeoJSON) whose entering and leaving a recording writes as
    /// transitions.
    struct Region: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Add, import, list, export and remove regions; entering or leaving one while recording is a transition.",
            discussion: """
                Regions count from the next `gpslog record`. Transitions are kept in every monitoring mode but \
                quiet (`gpslog events SESSION`); each entry keeps the regions it lies in.
                """,
            subcommands: [RegionAdd.self, RegionList.self, RegionRemove.self, RegionImport.self, RegionExport.self],
            defaultSubcommand: RegionList.self)
    }
}
