// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    /// One page of a session's marks in time order (ties in insertion order): at most `limit` marks after the
    /// mark `after` (its TimeStamp and Key; nil: from the first). Read through the marks' own index, so a page costs
    /// the same at the millionth mark as at the first, and its memory is that of `limit` marks.
    public func marks(of sessionID: String, after: (time: Int64, key: Int64)?, limit: Int) throws -> [Entry] {
        try sqlite {
            let statement = try database.makeStatement(
                """
                SELECT \(Store.entryColumns) FROM EntryRows
                WHERE SessionKey = (SELECT Key FROM Sessions WHERE ID = ?1) AND Marked = 1 AND TimeStamp >= ?2
                    AND (TimeStamp > ?2 OR Key > ?3)
                ORDER BY TimeStamp, Key LIMIT ?4
                """)
            try statement.bind([
                .text(sessionID), .integer(after?.time ?? Int64.min), .integer(after?.key ?? Int64.min),
                .integer(Int64(max(0, limit))),
            ])
            return try EntryCursor(statement: statement, store: self).all()
        }
    }
}
