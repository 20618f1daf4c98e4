// SPDX-License-Identifier: MIT
import GPSLogSQLite
import GPSLogStore

/// Makes a database left at schema `version` (18: main before issue 23's kept figures and compact rows) holding one
/// session, 'Old ride', with `count` rows: `values` is the SELECT list (over `i`, 0 ..< count) for `columns` after
/// `Session`, written by SQL as an older gpslog would have.
public func makeOldDatabase(at path: String, version: Int = 18, count: Int, columns: String, values: String) throws {
    let db = try Database(path: path)
    defer { db.close() }
    try Migrations.migrate(db, upTo: version)
    try db.execute(
        """
        INSERT INTO Sessions (ID, StartTime, EndTime, Name)
        VALUES ('00000000-0000-4000-8000-000000000001', 1000, 1700100000000, 'Old ride');
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(count - 1))
        INSERT INTO Entries (Session, \(columns)) SELECT '00000000-0000-4000-8000-000000000001', \(values) FROM n;
        """)
}
