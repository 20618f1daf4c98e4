// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Where an upload to one destination stands: the last confirmed track point and what was sent.
public struct UploadProgress: Sendable, Equatable {
    /// The last confirmed track point, (TimeStamp, Key); nil when nothing was confirmed yet.
    public var last: (time: Int64, key: Int64)?
    /// Entries confirmed so far.
    public var sent: Int
    /// Batches confirmed so far.
    public var batches: Int
    /// Track length in metres up to the last confirmed point.
    public var distance: Double
    /// When the last batch was confirmed.
    public var sentAt: Timestamp?

    /// Creates a progress from its parts (nothing sent by default).
    public init(
        last: (time: Int64, key: Int64)? = nil, sent: Int = 0, batches: Int = 0, distance: Double = 0,
        sentAt: Timestamp? = nil
    ) {
        self.last = last
        self.sent = sent
        self.batches = batches
        self.distance = distance
        self.sentAt = sentAt
    }

    /// Equal field by field (a tuple is not `Equatable`).
    public static func == (a: UploadProgress, b: UploadProgress) -> Bool {
        a.last?.time == b.last?.time && a.last?.key == b.last?.key && a.sent == b.sent && a.batches == b.batches
            && a.distance == b.distance && a.sentAt == b.sentAt
    }
}

extension Store {
    // MARK: - Track points, in track order

    static let trackPointFilter = "Marked = 0 AND IsHeadingChanged = 0"

    /// Track points and marks: what OwnTracks publishes (a mark is a user-triggered location, a POI).
    static let messageFilter = "IsHeadingChanged = 0"

    /// A cursor over a session's track points (not marks, not heading changes) after `after`, in track order
    /// (TimeStamp, Key): the queue of an upload.
    /// - Parameters:
    ///   - sessionID: the session's id.
    ///   - after: the last point already confirmed, as (TimeStamp, Key); nil: from the start.
    ///   - limit: the most points read; -1: no limit.
    ///   - marks: the marks too, in the same order (OwnTracks' queue).
    /// - Returns: a cursor that owns its statement.
    /// - Throws: `StoreError` when SQLite cannot prepare the query.
    public func trackPoints(
        of sessionID: String, after: (time: Int64, key: Int64)?, limit: Int = -1, marks: Bool = false
    ) throws -> EntryCursor {
        return try sqlite {
            let statement = try database.makeStatement(
                """
                SELECT \(Store.entryColumns) FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND \(marks ? Store.messageFilter : Store.trackPointFilter) AND (TimeStamp, Key) > (?2, ?3)
                ORDER BY TimeStamp, Key LIMIT ?4
                """)
            try statement.bind([
                .text(sessionID), .integer(after?.time ?? Int64.min), .integer(after?.key ?? Int64.min),
                .integer(Int64(limit)),
            ])
            return EntryCursor(statement: statement, store: self)
        }
    }

    /// How many track points (and marks, with `marks`) come after `after`.
    public func countTrackPoints(of sessionID: String, after: (time: Int64, key: Int64)?, marks: Bool = false) throws
        -> Int
    {
        return try sqlite {
            Int(
                try database.scalar(
                    """
                    SELECT COUNT(*) FROM EntryRows WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND \(marks ? Store.messageFilter : Store.trackPointFilter) AND (TimeStamp, Key) > (?2, ?3)
                    """, [.text(sessionID), .integer(after?.time ?? Int64.min), .integer(after?.key ?? Int64.min)])?
                    .int64 ?? 0)
        }
    }

    /// The first and the latest track point of a session.
    public func trackEnds(of sessionID: String) throws -> (first: Entry, last: Entry)? {
        return try sqlite {
            func one(_ order: String) throws -> Entry? {
                let s = try database.cachedStatement(
                    """
                    SELECT \(Store.entryColumns) FROM EntryRows WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?) AND \(Store.trackPointFilter) ORDER BY TimeStamp \(order), Key \(order) LIMIT 1
                    """)
                defer { s.reset() }
                try s.bind(sessionID, at: 1)
                return try s.step() ? Store.readEntry(s) : nil
            }
            guard let first = try one("ASC"), let last = try one("DESC") else { return nil }
            return (first, last)
        }
    }

    // MARK: - Upload progress

    /// What `destination` has confirmed of a session.
    public func uploadProgress(session: String, destination: String) throws -> UploadProgress {
        return try sqlite {
            let s = try database.cachedStatement(
                "SELECT LastTimeStamp, LastKey, Sent, Batches, Distance, SentAt FROM Uploads WHERE Session = ? AND Destination = ?"
            )
            defer { s.reset() }
            try s.bind([.text(session), .text(destination)])
            guard try s.step() else { return UploadProgress() }
            return UploadProgress(
                last: (s.int64(at: 0)!, s.int64(at: 1)!), sent: s.int(at: 2) ?? 0, batches: s.int(at: 3) ?? 0,
                distance: s.double(at: 4) ?? 0, sentAt: s.int64(at: 5).map { Timestamp(milliseconds: $0) })
        }
    }

    /// Records a confirmed batch (one small transaction of its own, or the caller's).
    public func saveUploadProgress(_ p: UploadProgress, session: String, destination: String) throws {
        try sqlite {
            guard let last = p.last else { return }
            try writeJoiningTransaction {
                try database.run(
                    """
                    INSERT OR REPLACE INTO Uploads (Session, Destination, LastTimeStamp, LastKey, Sent, Batches, Distance, SentAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(session), .text(destination), .integer(last.time), .integer(last.key),
                        .integer(Int64(p.sent)),
                        .integer(Int64(p.batches)), .real(p.distance), .integer(p.sentAt?.milliseconds ?? 0),
                    ])
            }
        }
    }
}

extension Store {
    /// The entry with this row key.
    public func trackPoint(key: Int64) throws -> Entry? {
        return try sqlite {
            let s = try database.cachedStatement("SELECT \(Store.entryColumns) FROM EntryRows WHERE Key = ?")
            defer { s.reset() }
            try s.bind(key, at: 1)
            return try s.step() ? Store.readEntry(s) : nil
        }
    }
}
