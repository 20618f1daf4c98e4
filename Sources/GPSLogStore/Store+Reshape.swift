// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// `gpslog split` and `gpslog merge`: entries move between sessions (their keys and ids stay), with what belongs to
/// them: visits, pauses and transitions by their time; upload cursors and sent records so that nothing is sent twice;
/// the receiver (the device `serve` writes for) with the part that goes on.
extension Store {
    /// The tables of per-session records with a time (table, time column): they follow it when a session is split,
    /// and go with it when entries are cleaned or pruned.
    static let timedRecords = [
        ("Visits", "ArrivalTime"), ("TrackingEvents", "TimeStamp"), ("Transitions", "TimeStamp"),
    ]

    /// Splits `session` at `time`: entries at or after it go to a new session named `name` (by default the
    /// session's name with " (2)"), which ends when the session ended (or is open if it was) and keeps its trip mode
    /// and receiver; the session ends at its last entry before `time`. One transaction; both sessions' figures are
    /// counted again.
    /// - Returns: the new session.
    /// - Throws: `StoreError.cannotChange` when no entry is before `time`, or none at or after it.
    public func split(_ session: Session, at time: Timestamp, name: String? = nil) throws -> Session {
        try sqlite {
            try database.transaction(.immediate) {
                let counts = try database.cachedStatement(
                    """
                    SELECT COUNT(*) FILTER (WHERE TimeStamp < ?2), COUNT(*) FILTER (WHERE TimeStamp >= ?2),
                           MAX(TimeStamp) FILTER (WHERE TimeStamp < ?2), MIN(TimeStamp) FILTER (WHERE TimeStamp >= ?2)
                    FROM EntryRows WHERE SessionKey = ?1
                    """)
                defer { counts.reset() }
                try counts.bind([.integer(session.key), .integer(time.milliseconds)])
                _ = try counts.step()
                guard counts.requiredInt64(at: 0) > 0, counts.requiredInt64(at: 1) > 0,
                    let lastBefore = counts.int64(at: 2), let firstAfter = counts.int64(at: 3)
                else {
                    let side = counts.requiredInt64(at: 0) == 0 ? "before" : "at or after"
                    throw StoreError.cannotChange(
                        session: session.name, reason: "it has no entry \(side) \(time.iso8601()) to split at")
                }
                counts.reset()
                let newName = (name ?? "\(session.name) (2)").trimmedWhitespace.truncated(to: TextLimit.sessionName)
                guard !newName.isEmpty else {
                    throw StoreError.cannotChange(session: session.name, reason: "the new session's name is empty")
                }
                let id = Identifier.uuidV4().lowercased()
                let receiver = try database.scalar(
                    "SELECT Receiver FROM Sessions WHERE Key = ?", [.integer(session.key)])
                try database.run(
                    "UPDATE Sessions SET Receiver = NULL, EndTime = ? WHERE Key = ?",
                    [
                        .integer(max(lastBefore, session.start.milliseconds)), .integer(session.key),
                    ])
                try database.run(
                    """
                    INSERT INTO Sessions (ID, Name, StartTime, EndTime, Mode, Trip, StoppedAutomatically, Receiver)
                    SELECT ?, ?, ?, ?, Mode, Trip, StoppedAutomatically, ? FROM Sessions WHERE Key = ?
                    """,
                    [
                        .text(id), .text(newName), .integer(firstAfter),
                        SQLiteValue(session.end.map { max($0.milliseconds, firstAfter) }), receiver ?? .null,
                        .integer(session.key),
                    ])
                let newKey = database.lastInsertRowID
                try database.run(
                    "UPDATE EntryRows SET SessionKey = ?1 WHERE SessionKey = ?2 AND TimeStamp >= ?3",
                    [.integer(newKey), .integer(session.key), .integer(time.milliseconds)])
                try database.run(
                    """
                    INSERT OR IGNORE INTO EntryDays (Day, SessionKey)
                    SELECT DISTINCT TimeStamp / 86400000, ?1 FROM EntryRows WHERE SessionKey = ?1
                    """, [.integer(newKey)])
                try forgetEmptyDays(sessionKey: session.key)
                for (table, column) in Store.timedRecords {
                    try database.run(
                        "UPDATE \(table) SET Session = ?1 WHERE Session = ?2 AND \(column) >= ?3",
                        [.text(id), .text(session.id), .integer(time.milliseconds)])
                }
                // What a destination confirmed of the session's track covers the new part's points up to its cursor.
                try database.run(
                    """
                    INSERT INTO Uploads (Session, Destination, LastTimeStamp, LastKey, Sent, Batches, Distance, SentAt)
                    SELECT ?1, Destination, LastTimeStamp, LastKey, 0, 0, 0, SentAt FROM Uploads
                    WHERE Session = ?2 AND LastTimeStamp >= ?3
                    """, [.text(id), .text(session.id), .integer(time.milliseconds)])
                try database.run(
                    "INSERT INTO SentRecords (Session, Destination, Record) SELECT ?1, Destination, Record FROM SentRecords WHERE Session = ?2",
                    [.text(id), .text(session.id)])
                try saveRecount(sessionKey: session.key)
                try historyChanged(sessionKey: session.key)
                try saveRecount(sessionKey: newKey)
                try historyChanged(sessionKey: newKey)
                return try self.session(id: id)!
            }
        }
    }

    /// Moves every entry and record of `other` into `session` and deletes `other`, in one transaction. The
    /// session then spans both; it is open if either was; the first track point that came from `other` starts a
    /// segment (no line is drawn across the gap between them). The session's upload cursors stay: points of `other`
    /// before a destination's cursor are not sent to it again. `other`'s receiver comes along when the session has
    /// none.
    /// - Returns: the merged session.
    public func merge(_ other: Session, into session: Session) throws -> Session {
        try sqlite {
            guard other.key != session.key else {
                throw StoreError.cannotChange(session: session.name, reason: "a session cannot be merged into itself")
            }
            return try database.transaction(.immediate) {
                try database.run(
                    """
                    UPDATE EntryRows SET Extras = \(EntryExtras.settingFlag("StartsSegment")) WHERE Key = (
                        SELECT Key FROM EntryRows WHERE SessionKey = ? AND \(Store.trackPointFilter)
                        ORDER BY TimeStamp, Key LIMIT 1)
                    """, [.integer(other.key)])
                try database.run(
                    "UPDATE EntryRows SET SessionKey = ? WHERE SessionKey = ?",
                    [.integer(session.key), .integer(other.key)])
                try database.run(
                    "INSERT OR IGNORE INTO EntryDays (Day, SessionKey) SELECT Day, ?1 FROM EntryDays WHERE SessionKey = ?2",
                    [.integer(session.key), .integer(other.key)])
                for (table, _) in Store.timedRecords {
                    try database.run(
                        "UPDATE \(table) SET Session = ? WHERE Session = ?", [.text(session.id), .text(other.id)])
                }
                try database.run(
                    "INSERT OR IGNORE INTO SentRecords (Session, Destination, Record) SELECT ?1, Destination, Record FROM SentRecords WHERE Session = ?2",
                    [.text(session.id), .text(other.id)])
                let receiver = try database.scalar("SELECT Receiver FROM Sessions WHERE Key = ?", [.integer(other.key)])
                let dropped = try database.cachedStatement(
                    "SELECT DroppedPosition, DroppedTime, DroppedSpeed FROM Sessions WHERE Key = ?")
                try dropped.bind(other.key, at: 1)
                _ = try dropped.step()
                let (position, time, speed) = (dropped.int64(at: 0), dropped.int64(at: 1), dropped.int64(at: 2))
                dropped.reset()
                // The other session's rows, days, figures, cursors and records go with it (triggers, foreign keys).
                try database.run("DELETE FROM Sessions WHERE Key = ?", [.integer(other.key)])
                let end: Int64? =
                    switch (session.end, other.end) {
                    case (let a?, let b?): max(a.milliseconds, b.milliseconds)
                    default: nil
                    }
                try database.run(
                    """
                    UPDATE Sessions SET StartTime = MIN(StartTime, ?2), EndTime = ?3,
                        Receiver = COALESCE(Receiver, ?4),
                        DroppedPosition = CASE WHEN ?5 IS NULL THEN DroppedPosition ELSE COALESCE(DroppedPosition, 0) + ?5 END,
                        DroppedTime = CASE WHEN ?6 IS NULL THEN DroppedTime ELSE COALESCE(DroppedTime, 0) + ?6 END,
                        DroppedSpeed = CASE WHEN ?7 IS NULL THEN DroppedSpeed ELSE COALESCE(DroppedSpeed, 0) + ?7 END
                    WHERE Key = ?1
                    """,
                    [
                        .integer(session.key), .integer(other.start.milliseconds), SQLiteValue(end), receiver ?? .null,
                        SQLiteValue(position), SQLiteValue(time), SQLiteValue(speed),
                    ])
                try saveRecount(sessionKey: session.key)
                try historyChanged(sessionKey: session.key)
                return try self.session(id: session.id)!
            }
        }
    }
}
