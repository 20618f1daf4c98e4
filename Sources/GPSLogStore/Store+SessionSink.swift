// SPDX-License-Identifier: MIT
import GPSLogModel

/// The recorder, replay and every importer end in the user's database. Most requirements are the Store's own
/// methods; these are the rest.
extension Store: SessionSink {
    public func hasSession(id: String) throws -> Bool { try session(id: id) != nil }

    @discardableResult
    public func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        try appendInTransaction(entries, to: sessionID)
    }

    public func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T {
        try bulkWrite(expectedBytes: expectedBytes, body)
    }

    public var keepsFileEntryIDs: Bool { true }
    /// Asked once per entry of a file that keeps its ids (gpslog's CSV): the key's index probe only, not the row.
    public func entryIDIsFree(_ id: String) throws -> Bool { try sqlite { try entryKey(id: id) == nil } }
}
