// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// OwnTracks' regions: circles whose entering and leaving a recording writes as transitions.
    struct Region: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, list and remove regions: entering or leaving one while recording writes a transition.",
            discussion: """
                Regions count from the next `gpslog record`. Transitions are kept in every monitoring mode but \
                quiet (`gpslog events SESSION`); each entry keeps the regions it lies in.
                """,
            subcommands: [RegionAdd.self, RegionList.self, RegionRemove.self, RegionImport.self],
            defaultSubcommand: RegionList.self)
    }
}
