// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import Testing

/// Opens a real database file in a fresh temporary folder and closes it afterwards.
func withDatabase(_ body: (Database) throws -> Void) throws {
    let folder = NSTemporaryDirectory() + "/gpslog-sqlite-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let db = try Database(path: folder + "/test.sqlite")
    defer { db.close() }
    try body(db)
}

struct DatabaseTests {
    @Test func syntaxErrorsCarrySQLitesMessageAndTheSQL() throws {
        try withDatabase { db in
            let error = #expect(throws: SQLiteError.self) { try db.execute("SELEC 1") }
            #expect(error?.message == "near \"SELEC\": syntax error")
            #expect(error?.sql == "SELEC 1")
            #expect(error?.description.contains("SQLite error 1") == true)
        }
    }

    @Test func constraintViolationsAreRecognisable() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE t (x INTEGER NOT NULL CONSTRAINT x_positive CHECK (x > 0))")
            let error = #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (?)", [.integer(-1)]) }
            #expect(error?.isConstraintViolation == true)
            #expect(error?.message == "CHECK constraint failed: x_positive")
            // NaN is bound as NULL, so NOT NULL catches it.
            let nan = #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (?)", [.real(.nan)]) }
            #expect(nan?.message == "NOT NULL constraint failed: t.x")
        }
    }

    @Test func transactionsRollBackWholeOnError() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE t (x INTEGER UNIQUE)")
            #expect(throws: SQLiteError.self) {
                try db.transaction {
                    try db.run("INSERT INTO t VALUES (1)")
                    try db.run("INSERT INTO t VALUES (2)")
                    try db.run("INSERT INTO t VALUES (1)")
                }
            }
            #expect(try db.scalar("SELECT COUNT(*) FROM t")?.int64 == 0)
            #expect(!db.isInTransaction)
        }
    }

    @Test func cachedStatementsAreReusedAndTypedValuesRoundTrip() throws {
        try withDatabase { db in
            try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB)")
            let insert = "INSERT INTO t VALUES (?, ?, ?, ?)"
            #expect(try db.cachedStatement(insert) === db.cachedStatement(insert))
            for i in 0..<3 {
                try db.run(
                    insert, [.integer(Int64(i)), .real(Double(i) / 2), .text("é<&>\"\(i)"), .blob([0, 1, UInt8(i)])])
            }
            let s = try db.makeStatement("SELECT i, r, s, b FROM t ORDER BY i")
            var rows: [[SQLiteValue]] = []
            while try s.step() { rows.append((0..<4).map { s.value(at: $0) }) }
            #expect(rows.count == 3)
            #expect(rows[2] == [.integer(2), .real(1.0), .text("é<&>\"2"), .blob([0, 1, 2])])
        }
    }

    @Test func openingADirectoryOrGarbageFailsWithTheLibrarysMessage() throws {
        let folder = NSTemporaryDirectory() + "/gpslog-sqlite-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let dirError = #expect(throws: SQLiteError.self) { _ = try Database(path: folder) }
        #expect(dirError?.message.contains("unable to open database file") == true)
        let garbage = folder + "/garbage.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let db = try Database(path: garbage)
        let notDB = #expect(throws: SQLiteError.self) { try db.execute("SELECT * FROM sqlite_master") }
        #expect(notDB?.message == "file is not a database")
        db.close()
        #expect(throws: SQLiteError.self) { try db.execute("SELECT 1") }
    }
}
