// SPDX-License-Identifier: MIT
import GPSLogSQLite

/// The SQLite database of the iOS app GPS Log (`Log.db`), opened read-only: its Sessions and Entries rows as the
/// app wrote them (TEXT-typed, local times, `-1` for unknown), for `gpslog import`. Here because only the Store
/// speaks SQL; what the cells mean is the importer's business.
public final class GPSLogAppDatabase {
    private let database: Database
    /// The file's path as given, for errors.
    public let path: String

    /// Opens the file read-only and checks that it has GPS Log's Entries table.
    /// - Throws: `StoreError.cannotOpen` with SQLite's words when it is not such a database.
    public init(path: String) throws {
        self.path = path
        do {
            database = try Database(path: path, mode: .readOnly)
            _ = try database.scalar("SELECT COUNT(*) FROM Entries")
        } catch let error as SQLiteError {
            throw StoreError.cannotOpen(path: path, reason: error.message)
        }
    }

    deinit { database.close() }

    /// A Sessions row: its ID, StartTime, EndTime and Name, as text.
    public struct SessionRow: Sendable, Equatable {
        /// The Sessions row's ID, which its Entries rows name in their Session column.
        public var id: String
        /// StartTime as the app wrote it (local time); nil when NULL or without a Sessions row.
        public var start: String?
        /// EndTime as the app wrote it (local time); nil when NULL or without a Sessions row.
        public var end: String?
        /// Name; nil when NULL or without a Sessions row.
        public var name: String?
    }

    /// The Sessions rows in start order, then one row (all but its id nil) per Session of Entries with no Sessions
    /// row (GPS Log writes the row only when the user saves the session).
    public func sessions() throws -> [SessionRow] {
        try failing {
            var rows: [SessionRow] = []
            let s = try database.makeStatement(
                "SELECT ID, StartTime, EndTime, Name FROM Sessions ORDER BY StartTime, Key")
            while try s.step() {
                rows.append(
                    SessionRow(
                        id: s.string(at: 0) ?? "", start: s.string(at: 1), end: s.string(at: 2), name: s.string(at: 3)))
            }
            let known = Set(rows.map(\.id))
            let orphans = try database.makeStatement("SELECT DISTINCT Session FROM Entries")
            while try orphans.step() {
                guard let id = orphans.string(at: 0), !known.contains(id) else { continue }
                rows.append(SessionRow(id: id))
            }
            return rows
        }
    }

    /// The Entries columns `EntryRow` holds, in this order.
    public enum Column: Int32, CaseIterable, Sendable {
        case latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, timeStamp, speed, course, address
        case marked, entryID, instanceCount, heading, isHeadingChanged, headingTimeStamp
    }

    /// One Entries row as stored: each cell's text, and its number when SQLite sees one.
    public struct EntryRow: Sendable {
        fileprivate var texts: [String?]
        fileprivate var numbers: [Double?]

        /// The cell's text; nil when NULL.
        public func text(_ c: Column) -> String? { texts[Int(c.rawValue)] }

        /// The cell as a number: SQLite's when its text reads as one too (or it has none), else its text read as a
        /// number (GPS Log wrote numbers as text, sometimes padded).
        public func number(_ c: Column) -> Double? {
            let text = texts[Int(c.rawValue)]
            if let v = numbers[Int(c.rawValue)], text.map({ Double($0.trimmedWhitespace) != nil }) ?? true { return v }
            return text.flatMap { Double($0.trimmedWhitespace) }
        }
    }

    /// Calls `body` with each Entries row of a session, in insertion order.
    public func forEachEntry(ofSession id: String, _ body: (EntryRow) throws -> Void) throws {
        try failing {
            let s = try database.makeStatement(
                """
                SELECT Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course, Address,
                       Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp
                FROM Entries WHERE Session = ? ORDER BY Key
                """)
            try s.bind(id, at: 1)
            let columns = Column.allCases.map(\.rawValue)
            while try s.step() {
                try body(EntryRow(texts: columns.map { s.string(at: $0) }, numbers: columns.map { s.double(at: $0) }))
            }
        }
    }

    private func failing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError.failed(path: path, reason: error.message)
        }
    }
}
