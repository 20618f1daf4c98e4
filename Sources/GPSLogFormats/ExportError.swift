// SPDX-License-Identifier: MIT
import Foundation

/// Why an export failed; the destination file is left as it was.
public enum ExportError: LocalizedError, Equatable {
    case cannotWrite(path: String, reason: String)
    case nothingToExport(String)
    case badOption(String)

    /// What went wrong, naming the file or option, for people.
    public var errorDescription: String? {
        switch self {
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason); nothing was written there."
        case .nothingToExport(let text): text
        case .badOption(let text): text
        }
    }
}
