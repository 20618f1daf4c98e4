// SPDX-License-Identifier: MIT
import GPSLogModel

/// A destination's cursor through a session, as the senders keep it: where it got to, which records it confirmed,
/// and the track points after the cursor. `Store` keeps them.
public protocol SendCursorStore: AnyObject {
    /// How far `destination` got in `session` (nothing sent yet: an empty progress).
    func uploadProgress(session: String, destination: String) throws -> UploadProgress
    /// Moves the cursor.
    func saveUploadProgress(_ p: UploadProgress, session: String, destination: String) throws
    /// Moves the cursor and notes the records `destination` confirmed with it, in one transaction.
    func saveUploadProgress(_ p: UploadProgress, records: [String], session: String, destination: String) throws
    /// The ids of the records `destination` confirmed.
    func sentRecords(session: String, destination: String) throws -> Set<String>
    /// How many track points (and marks, with `marks`) come after the cursor `after`.
    func countTrackPoints(of sessionID: String, after: (time: Int64, key: Int64)?, marks: Bool) throws -> Int
    /// Track points (and marks, with `marks`) after the cursor `after`, at most `limit` (-1: all), streamed.
    func trackPoints(of sessionID: String, after: (time: Int64, key: Int64)?, limit: Int, marks: Bool) throws
        -> EntryCursor
    /// One track point by its key.
    func trackPoint(key: Int64) throws -> Entry?
    /// A session's first and last track points; nil without any.
    func trackEnds(of sessionID: String) throws -> (first: Entry, last: Entry)?
}

/// What `Uploader` reads: the cursor, and what Overland's records are made of (events, visits, a trip's length).
public protocol UploadSource: SendCursorStore {
    /// A session's pauses and resumes.
    func trackingEvents(of sessionID: String) throws -> [TrackingEvent]
    /// A session's visits by arrival.
    func visits(of sessionID: String) throws -> [Visit]
    /// The length of a session's track (metres).
    func trackLength(sessionID: String) throws -> Double
}

extension Store: UploadSource {}
