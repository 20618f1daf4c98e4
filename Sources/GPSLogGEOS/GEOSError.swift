// SPDX-License-Identifier: MIT
import Foundation

/// An error reported by GEOS: the operation that failed and GEOS's own messages.
public struct GEOSError: Error, LocalizedError, Equatable {
    public var operation: String
    public var messages: [String]

    public init(operation: String, messages: [String]) {
        self.operation = operation
        self.messages = messages
    }

    public var errorDescription: String? {
        messages.isEmpty
            ? "GEOS: \(operation) failed" : "GEOS: \(operation) failed: \(messages.joined(separator: "; "))"
    }
}
