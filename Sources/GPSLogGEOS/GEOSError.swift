// SPDX-License-Identifier: MIT
import Foundation

/// An error reported by GEOS: the operation that failed and GEOS's own messages.
public struct GEOSError: Error, LocalizedError, Equatable {
    /// What failed: the GEOS function (`GEOS_init_r`) or our own step ("creating a polygon").
    public var operation: String
    /// GEOS's own messages about the failure; may be empty.
    public var messages: [String]

    /// Creates an error from its parts.
    public init(operation: String, messages: [String]) {
        self.operation = operation
        self.messages = messages
    }

    /// "GEOS: OPERATION failed", with GEOS's messages when there are any.
    public var errorDescription: String? {
        messages.isEmpty
            ? "GEOS: \(operation) failed" : "GEOS: \(operation) failed: \(messages.joined(separator: "; "))"
    }
}
