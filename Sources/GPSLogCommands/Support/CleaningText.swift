// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore

/// The words of `delete`, `prune`, `split` and `merge`.
enum CleaningText {
    /// "12 entries (10 track points, 2 marks; outliers: 8 jumps faster than 1000 km/h, 2 at 0°, 0°) and 1 visit,
    /// pause or transition".
    static func describe(_ r: CleaningReport, maxSpeed: Double?) -> String {
        var kinds: [String] = []
        if r.trackPoints > 0 { kinds.append(count(r.trackPoints, "track point")) }
        if r.marks > 0 { kinds.append(count(r.marks, "mark")) }
        if r.headingChanges > 0 { kinds.append(count(r.headingChanges, "heading change")) }
        var text = count(r.entries, "entry", "entries")
        var details = kinds.joined(separator: ", ")
        if !r.reasons.isEmpty {
            let reasons = OutlierDetector.Reason.allCases.compactMap { reason -> String? in
                guard let n = r.reasons[reason] else { return nil }
                return switch reason {
                case .jump: "\(n) in jumps faster than \(Int(maxSpeed ?? 0)) km/h"
                case .nullIsland: "\(n) at 0°, 0°"
                case .accuracy: "\(n) less accurate than the limit"
                }
            }
            details += "; outliers: " + reasons.joined(separator: ", ")
        }
        if !details.isEmpty { text += " (\(details))" }
        if r.events > 0 {
            text += " and " + count(r.events, "visit, pause or transition", "visits, pauses or transitions")
        }
        return text
    }

    static func count(_ n: Int, _ one: String, _ many: String? = nil) -> String {
        "\(n) " + (n == 1 ? one : many ?? one + "s")
    }

    /// What the file gave back, or how to make it give space back.
    static func printSpace(_ space: SpaceReport) {
        let mb = { (bytes: Int64) in
            bytes < 1_000_000 ? "\(bytes / 1000) kB" : String(format: "%.1f MB", Double(bytes) / 1_000_000)
        }
        if space.incremental {
            if space.returned > 0 { print("The database file gave \(mb(space.returned)) back to the disk.") }
        } else if space.free >= 1_000_000 {
            print(
                "\(mb(space.free)) are free inside the database file, for new entries; `gpslog check --vacuum` gives "
                    + "them back to the disk (once; later cleanings then do it themselves).")
        }
    }

    /// True with `yes`, or when the user answers yes on a terminal; refuses without a terminal.
    static func confirm(_ question: String, yes: Bool) throws -> Bool {
        if yes { return true }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandError.confirmationNeeded(
                "refusing without confirmation (\(question.dropLast())): stdin is not a terminal; pass --yes")
        }
        print("\(question) [y/N] ", terminator: "")
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            print("Nothing deleted.")
            return false
        }
        return true
    }
}
