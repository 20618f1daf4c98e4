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

    var errorDescription: String? {
        switch self {
        case .confirmationNeeded(let text): text
        case .refused(let text): text
        case .file(let path, let reason): "\(path): \(reason)"
        case .noRegion(let name): "no region is named '\(name)': see gpslog region list"
        }
    }
}
