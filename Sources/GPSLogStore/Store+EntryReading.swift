// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// A cursor over a session's entries in time order (ties in insertion order). It reads one row at a time, so
    /// memory stays flat whatever the session's size.
    /// - Parameters:
    ///   - sessionID: the session's id; an id that matches none gives an empty cursor.
    ///   - from: first time included, when given.
    ///   - to: last time included, when given.
    ///   - fields: every column, or only what a drawn track needs (see `EntryFields`).
    /// - Returns: a cursor that owns its statement and reads one row at a time.
    /// - Throws: `StoreError` when SQLite cannot prepare the query (`busy` for a lock held past the timeout).
    public func entries(of sessionID: String, from: Timestamp? = nil, to: Timestamp? = nil, fields: EntryFields = .all)
        throws -> EntryCursor
    {
        try entries(of: sessionID, from: from, to: to, fields: fields, keepingTrackPoints: nil)
    }

    /// `entries(of:from:to:fields:)`, with only the track points whose key is in `kept` (nil: all), marks and heading
    /// changes all.
    func entries(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields,
        keepingTrackPoints kept: Set<Int64>?
    ) throws -> EntryCursor {
        return try sqlite {
            // A fresh statement, not the cache: two cursors may be open at once (merging sessions in an export).
            let statement = try database.makeStatement(
                """
                SELECT \(Store.columns(fields)) FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND TimeStamp >= ?2 AND TimeStamp <= ?3
                ORDER BY TimeStamp, Key
                """)
            try statement.bind(sessionID, at: 1)
            try statement.bind(from?.milliseconds ?? Int64.min, at: 2)
            try statement.bind(to?.milliseconds ?? Int64.max, at: 3)
            let read: (Statement) -> Entry
            switch fields {
            case .all: read = { Store.readEntry($0) }
            case .track: read = { Store.readTrackEntry($0) }
            case .position: read = { Store.readPositionEntry($0) }
            }
            guard let kept else { return EntryCursor(statement: statement, store: self, read: read) }
            // Where each column list has Marked and IsHeadingChanged (Key is the first of every list).
            let (marked, heading): (Int32, Int32)
            switch fields {
            case .all: (marked, heading) = (11, 14)
            case .track: (marked, heading) = (7, 8)
            case .position: (marked, heading) = (4, 5)
            }
            return EntryCursor(statement: statement, store: self, read: read) { s in
                s.requiredInt64(at: marked) == 0 && s.requiredInt64(at: heading) == 0
                    && !kept.contains(s.requiredInt64(at: 0))
            }
        }
    }

    /// The columns of `EntryFields.track`, in the order `readTrackEntry` reads them.
    static let trackColumns = """
        Key, Latitude, Longitude, Altitude, TimeStamp, Speed, Course, Marked, IsHeadingChanged, InstanceCount, \
        Satellites, HDOP, VDOP, PDOP, FixMode, \(EntryExtras.select("StartsSegment")), \(EntryExtras.attributesColumn)
        """

    /// The columns a cursor over `fields` reads.
    static func columns(_ fields: EntryFields) -> String {
        switch fields {
        case .all: entryColumns
        case .track: trackColumns
        case .position: positionColumns
        }
    }

    /// The columns of `EntryFields.position`, in the order `readPositionEntry` reads them.
    static let positionColumns = """
        Key, Latitude, Longitude, TimeStamp, Marked, IsHeadingChanged, \(EntryExtras.select("StartsSegment"))
        """

    static func readPositionEntry(_ s: Statement) -> Entry {
        var e = Entry(
            key: s.requiredInt64(at: 0), id: "", latitude: s.requiredDouble(at: 1), longitude: s.requiredDouble(at: 2),
            time: Timestamp(milliseconds: s.requiredInt64(at: 3)), marked: s.requiredInt64(at: 4) == 1,
            isHeadingChanged: s.requiredInt64(at: 5) == 1)
        e.startsSegment = s.requiredInt64(at: 6) == 1
        return e
    }

    static func readTrackEntry(_ s: Statement) -> Entry {
        // Key, Latitude, Longitude, TimeStamp, Marked, IsHeadingChanged and InstanceCount are NOT NULL; StartsSegment
        // is NULL (0) unless set.
        var e = Entry(
            key: s.requiredInt64(at: 0), id: "", latitude: s.requiredDouble(at: 1), longitude: s.requiredDouble(at: 2),
            altitude: s.double(at: 3), time: Timestamp(milliseconds: s.requiredInt64(at: 4)), speed: s.double(at: 5),
            course: s.double(at: 6), marked: s.requiredInt64(at: 7) == 1, instanceCount: Int(s.requiredInt64(at: 9)),
            isHeadingChanged: s.requiredInt64(at: 8) == 1)
        e.satellites = s.int(at: 10)
        e.hdop = s.double(at: 11)
        e.vdop = s.double(at: 12)
        e.pdop = s.double(at: 13)
        e.fixMode = s.int(at: 14).flatMap(FixMode.init(rawValue:))
        e.startsSegment = s.requiredInt64(at: 15) == 1
        _ = s.withText(at: 16) { text in
            var reader = EntryExtras.Reader(bytes: text)
            e.attributes = reader.strings()
        }
        return e
    }

    /// The entry with this EntryID (see `entryKey(id:)` for how it is found).
    public func entry(id: String) throws -> Entry? {
        return try sqlite {
            guard let key = try entryKey(id: id) else { return nil }
            let s = try database.cachedStatement("SELECT \(Store.entryColumns) FROM EntryRows WHERE Key = ?")
            defer { s.reset() }
            try s.bind(key, at: 1)
            return try s.step() ? Store.readEntry(s) : nil
        }
    }
}
