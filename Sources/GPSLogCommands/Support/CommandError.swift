// SPDX-License-Identifier: MIT
import Foundation

/// Errors of the command layer itself.
enum CommandError: LocalizedError {
    /// A destructive command needs a confirmation it could not ask for.
    case confirmationNeeded(String)
    /// A provider or service refused to go on.
    case refused(String)
    /// A file could not be read or written.
    case file(path: String, reason: String)
    /// No region has this name.
    case noRegion(String)
    /// SQLite's integrity check found the database file damaged.
    case damaged(path: String, problems: [String])

    var errorDescription: String? {
        switch self {
        case .confirmationNeeded(let text): text
        case .refused(let text): text
        case .file(let path, let reason): "\(path): \(reason)"
        case .noRegion(let name): "no region is named '\(name)': see gpslog region list"
        case .damaged(let path, let problems):
            "the database \(path) is damaged (PRAGMA integrity_check):\n"
                + problems.prefix(20).map { "  \($0)" }.joined(separator: "\n")
                + "\nRestore it from a backup, or recover what is readable with `sqlite3 \(path) .recover`."
        }
    }
}
