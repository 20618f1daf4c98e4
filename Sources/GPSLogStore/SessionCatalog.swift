// SPDX-License-Identifier: MIT
import GPSLogModel

/// The sessions as a list: finding one by name or id, their summaries, renaming and deleting them. `Store` keeps them.
public protocol SessionCatalog: AnyObject {
    /// Every session, oldest first.
    func sessions() throws -> [Session]
    /// The session with this id; nil when there is none.
    func session(id: String) throws -> Session?
    /// The session a name, id or id prefix names (`StoreError.sessionNotFound`, `.ambiguousSession` otherwise).
    func resolveSession(_ query: String) throws -> Session
    /// Sessions not finished yet.
    func openSessions() throws -> [Session]
    /// A session's numbers (counts, length, span).
    func summary(of session: Session) throws -> SessionSummary
    /// Every session's numbers.
    func summaries() throws -> [SessionSummary]
    /// Renames a session.
    func renameSession(id: String, to name: String) throws
    /// Deletes a session and its rows; returns how many entries went with it.
    @discardableResult
    func deleteSession(id: String) throws -> Int
}

/// A session's rows as the web view reads them: windows of the track, heading changes, pages of marks, and what
/// an export reads (`SessionSource`).
public protocol SessionReader: SessionSource {
    /// Every row in the range, in time order, streamed.
    func entries(of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields) throws -> EntryCursor
    /// How many rows the range holds.
    func entryCount(of sessionID: String, from: Timestamp?, to: Timestamp?) throws -> Int
    /// The newest track point; nil without any.
    func lastTrackPoint(of sessionID: String) throws -> Entry?
    /// `count` track points spread evenly in time over the range.
    func sampledTrackPoints(of sessionID: String, from: Timestamp, to: Timestamp, count: Int) throws -> [Entry]
    /// The heading changes in the range, streamed.
    func headingChanges(of sessionID: String, from: Timestamp?, to: Timestamp?) throws -> EntryCursor
    /// Track points (and marks, with `marks`) after the cursor `after`, at most `limit` (-1: all), streamed.
    func trackPoints(of sessionID: String, after: (time: Int64, key: Int64)?, limit: Int, marks: Bool) throws
        -> EntryCursor
    /// At most `limit` marks after the cursor `after`.
    func marks(of sessionID: String, after: (time: Int64, key: Int64)?, limit: Int) throws -> [Entry]
}

extension Store: SessionCatalog, SessionReader {}
