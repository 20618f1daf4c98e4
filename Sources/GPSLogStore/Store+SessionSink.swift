// SPDX-License-Identifier: MIT
import GPSLogModel

/// The recorder, replay and every importer end in the user's database. Most requirements are the Store's own
/// methods; these are the rest.
extension Store: SessionSink {
    /// Looks the exact id up in Sessions (no name or prefix, unlike `resolveSession`).
    public func hasSession(id: String) throws -> Bool { try session(id: id) != nil }

    /// `appendInTransaction`: inside the caller's transaction; one row key per entry, in order.
    @discardableResult
    public func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        try appendInTransaction(entries, to: sessionID)
    }

    /// A `bulkWrite`: the rules checked in Swift, and a rollback journal for a large file.
    public func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T {
        try bulkWrite(expectedBytes: expectedBytes, body)
    }

    /// Always true: a file's entry ids are kept when no entry has them yet.
    public var keepsFileEntryIDs: Bool { true }
    /// The key's index probe only, not the row.
    public func entryIDIsFree(_ id: String) throws -> Bool { try sqlite { try entryKey(id: id) == nil } }
    /// Asked once per batch of a file that keeps its ids (gpslog's CSV): a few queries per hundred ids, in one call.
    public func takenEntryIDs(_ ids: [String]) throws -> Set<String> {
        try sqlite { try takenIDs(ids) }
    }
}
