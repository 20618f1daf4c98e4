// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogStore

extension GPSLog {
    /// `gpslog visit delete ID`.
    struct VisitDelete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a visit (the place stayed at; the track points stay).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The visit's id, as `gpslog timeline` shows it.") var id: Int64

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            guard let place = try store.timelinePlace(containing: id) else { throw VisitError.notFound(id) }
            let deleted = try store.deleteVisits(keys: place.visits)
            let merged = deleted > 1 ? " (\(deleted) visits merged)" : ""
            print("Deleted visit \(place.id)\(merged).")
        }
    }
}
