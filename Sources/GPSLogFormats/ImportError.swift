// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Why a file could not be imported. Nothing of the file is stored when one of these is thrown.
public enum ImportError: LocalizedError, Equatable {
    /// The file held no usable position.
    case noFixes(file: String, detail: String)
    /// The file's format is not one gpslog reads.
    case unsupportedFormat(file: String, detail: String)
    /// The file cannot be read.
    case unreadable(file: String, reason: String)
    /// A value is out of range or not a number; `line` is 0 when unknown.
    case invalidValue(file: String, line: Int, field: String, value: String)
    /// The file is malformed (libxml2's or the JSON parser's message).
    case malformed(file: String, line: Int, reason: String)

    public var errorDescription: String? {
        switch self {
        case .noFixes(let file, let detail):
            return "\(file): no position fixes to import (\(detail)); nothing was imported."
        case .unsupportedFormat(let file, let detail):
            return "\(file): \(detail); nothing was imported."
        case .unreadable(let file, let reason):
            return "\(file): cannot read it: \(reason)."
        case .invalidValue(let file, let line, let field, let value):
            // The value is shown cut: it came from the file, and may be megabytes long.
            return
                "\(file)\(line > 0 ? ":\(line)" : ""): \(field) '\(value.truncated(to: 120))' is not valid; nothing was imported."
        case .malformed(let file, let line, let reason):
            return "\(file)\(line > 0 ? ":\(line)" : ""): \(reason); nothing was imported."
        }
    }
}
