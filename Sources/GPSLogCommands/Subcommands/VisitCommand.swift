// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// `gpslog visit`: name or delete a place of the timeline. A group of its own, as `region` and `user` are, rather
    /// than subcommands of `timeline`, whose first argument is a day.
    struct VisitCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "visit",
            abstract: "Rename or delete a visit, by the id `gpslog timeline` shows (visit 12).",
            discussion: """
                A visit the timeline shows merged from several stored visits (they touch at the same place) is \
                renamed or deleted whole, whichever of their ids is given.
                """,
            subcommands: [VisitRename.self, VisitDelete.self])
    }
}
