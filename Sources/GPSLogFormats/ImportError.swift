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
    /// A region of a file cannot be one (no name, an invalid polygon: GEOS's reason); `feature` names it
    /// (`features[3] ('Meadow')`).
    case invalidRegion(file: String, feature: String, reason: String)

    /// What the file said (a value, a field path, a root element's namespace) is escaped (`visible`): a refusal is one
    /// line whatever the file holds, so no file can forge a line of the log or send escapes to a terminal. libxml2's
    /// and the JSON parser's own words may run to two lines.
    public var errorDescription: String? {
        switch self {
        case .noFixes(let file, let detail):
            return "\(file): no position fixes to import (\(detail.visible)); nothing was imported."
        case .unsupportedFormat(let file, let detail):
            return "\(file): \(detail.visible); nothing was imported."
        case .unreadable(let file, let reason):
            return "\(file): cannot read it: \(reason)."
        case .invalidValue(let file, let line, let field, let value):
            // The value is shown cut (it came from the file, and may be megabytes long) and escaped.
            return
                "\(file)\(line > 0 ? ":\(line)" : ""): \(field.visible) '\(value.truncated(to: 120).visible)' is not valid; nothing was imported."
        case .malformed(let file, let line, let reason):
            return "\(file)\(line > 0 ? ":\(line)" : ""): \(reason.visibleKeepingLines); nothing was imported."
        case .invalidRegion(let file, let feature, let reason):
            return "\(file): \(feature.visible): \(reason.truncated(to: 300).visible); nothing was imported."
        }
    }
}
