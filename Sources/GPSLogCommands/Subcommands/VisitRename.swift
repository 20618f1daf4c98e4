// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// `gpslog visit rename ID NAME`.
    struct VisitRename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Name a visit's place (shown before its address in the timeline and the day page).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The visit's id, as `gpslog timeline` shows it.") var id: Int64
        @Argument(help: "The place's name, at most \(TextLimit.placeName) characters.") var name: String

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            guard !name.allSatisfy(\.isWhitespace) else { throw ValidationError("The name must not be empty.") }
            guard name.trimmedWhitespace.count <= TextLimit.placeName else {
                throw ValidationError(
                    "The name has \(name.trimmedWhitespace.count) characters: at most \(TextLimit.placeName), please.")
            }
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            guard let place = try store.timelinePlace(containing: id) else { throw VisitError.notFound(id) }
            try store.setVisitName(name, keys: place.visits)
            let merged = place.visits.count > 1 ? " (\(place.visits.count) visits merged)" : ""
            print("Named visit \(place.id)\(merged) '\(name.trimmedWhitespace.visible)'.")
        }
    }
}

/// `gpslog visit`'s errors.
enum VisitError: LocalizedError {
    /// No stored visit has this id.
    case notFound(Int64)

    var errorDescription: String? {
        switch self {
        case .notFound(let id): "no visit has the id \(id): `gpslog timeline DAY` shows the ids (visit 12)"
        }
    }
}
