// SPDX-License-Identifier: MIT
import GPSLogModel

/// Exports and the web view read the user's store as a `SessionSource`.
extension Store: SessionSource {
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void
    ) throws {
        try entries(of: sessionID, from: from, to: to, fields: fields).forEach(body)
    }

    public func forEachMark(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void)
        throws
    {
        try marks(of: sessionID, from: from, to: to).forEach(body)
    }
}
