// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogSQLite
@testable import GPSLogStore

/// The Store says what a refused write broke from the constraint itself (SQLite's extended result code, and the
/// name the schema gives the constraint), so its words stay when SQLite words its message otherwise: each mapping is
/// fed an error of the same code and constraint name in other words, and gives the same reason.
@Suite(.ownThreads)
struct ConstraintErrorTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// An error of `kind` that names `name` as SQLite does, after other words than SQLite's.
    static func reworded(_ kind: SQLiteError.ConstraintKind, _ name: String) -> SQLiteError {
        SQLiteError(constraint: kind, message: "refused by the database, constraint: \(name)")
    }

    @Test func theKindComesFromTheExtendedCodeAndNotTheMessage() {
        let check = Self.reworded(.check, "latitude_in_range")
        #expect(check.constraintKind == .check && check.constraintName == "latitude_in_range")
        // SQLite's CHECK words on an error of another code are not a CHECK.
        let io = SQLiteError(extendedCode: 10, message: "CHECK constraint failed: latitude_in_range")
        #expect(io.constraintKind == nil && io.constraintName == nil)
        #expect(StoreError.entryReason(io) == io.message)
        let unique = SQLiteError(constraint: .unique, message: "CHECK constraint failed: Regions.Name")
        #expect(unique.constraintKind == .unique)
        #expect(StoreError.regionReason(unique) == "a region of that name exists (gpslog region remove it first)")
        let disk = SQLiteError(extendedCode: 10, message: "disk I/O error near Regions.Name")
        #expect(StoreError.regionReason(disk) == disk.message)
    }

    // MARK: - Entries

    @Test func anEntrysBrokenCheckIsNamedByTheConstraint() throws {
        let expected = "it breaks the rule latitude_in_range (CHECK constraint failed: latitude_in_range)"
        #expect(StoreError.entryReason(Self.reworded(.check, "latitude_in_range")) == expected)
        try withTemporaryStore { store, _ in
            let session = try store.createSession(name: "Checks", start: start)
            var e = makeEntries(count: 1)[0]
            e.latitude = 91
            let error = #expect(throws: StoreError.self) { try store.append([e], to: session.id) }
            #expect(error == .invalidEntry(index: 0, time: e.time.iso8601(), reason: expected))
        }
    }

    @Test func anEntryOfAMissingSessionIsNamedByTheForeignKey() throws {
        let expected = "its session does not exist (FOREIGN KEY constraint failed)"
        #expect(StoreError.entryReason(SQLiteError(constraint: .foreignKey, message: "no parent row")) == expected)
        try withTemporaryStore { store, _ in
            let error = #expect(throws: StoreError.self) {
                try store.append(makeEntries(count: 1), to: "00000000-0000-4000-8000-000000000000")
            }
            guard case .invalidEntry(_, _, let reason)? = error else {
                Issue.record("expected invalidEntry, got \(String(describing: error))")
                return
            }
            #expect(reason == expected)
        }
    }

    @Test func aTakenEntryIDIsNamedByTheUniqueIndexColumns() throws {
        #expect(StoreError.entryReason(Self.reworded(.unique, "EntryRows.EntryID")) == Store.duplicateID)
        // Another unique clash keeps SQLite's words, the table named as users know it.
        let other = SQLiteError(constraint: .unique, message: "UNIQUE constraint failed: EntryRows.Other")
        #expect(StoreError.entryReason(other) == "UNIQUE constraint failed: Entries.Other")
    }

    // MARK: - Sessions

    @Test func aSessionsBrokenCheckIsNamedByTheConstraint() throws {
        #expect(
            StoreError.sessionReason(Self.reworded(.check, "session_ends_after_start"))
                == "CHECK constraint failed: session_ends_after_start")
        try withTemporaryStore { store, _ in
            let session = try store.createSession(name: "Backwards", start: start)
            let error = #expect(throws: StoreError.self) {
                try store.finishSession(id: session.id, end: Timestamp(milliseconds: start.milliseconds - 1))
            }
            #expect(error == .invalidSession(reason: "CHECK constraint failed: session_ends_after_start"))
        }
    }

    // MARK: - Regions

    @Test func aRegionsTakenNameOrRidIsNamedByTheUniqueColumns() throws {
        #expect(
            StoreError.regionReason(Self.reworded(.unique, "Regions.Name"))
                == "a region of that name exists (gpslog region remove it first)")
        #expect(
            StoreError.regionReason(Self.reworded(.unique, "Regions.RegionID"))
                == "a region with its OwnTracks rid exists under another name")
        #expect(
            StoreError.regionReason(Self.reworded(.check, "region_radius_positive"))
                == "CHECK constraint failed: region_radius_positive")
        try withTemporaryStore { store, _ in
            let home = Region(
                name: "Home", latitude: 52.37, longitude: 4.89, radius: 100, regionID: "r1", created: start)
            try store.addRegion(home)
            var sameName = home
            sameName.regionID = "r9"
            let taken = #expect(throws: StoreError.self) { try store.addRegion(sameName) }
            #expect(
                taken?.errorDescription
                    == "the region 'Home' was refused: a region of that name exists (gpslog region remove it first)")
            var renamed = home
            renamed.name = "Elsewhere"
            let rid = #expect(throws: StoreError.self) { try store.addRegion(renamed) }
            #expect(
                rid?.errorDescription
                    == "the region 'Elsewhere' was refused: a region with its OwnTracks rid exists under another name")
            var flat = home
            flat.name = "Flat"
            flat.regionID = "r2"
            flat.radius = 0
            let radius = #expect(throws: StoreError.self) { try store.addRegion(flat) }
            #expect(radius == .invalidRegion(name: "Flat", reason: "CHECK constraint failed: region_radius_positive"))
        }
    }

    // MARK: - The schema

    /// SQLite names an unnamed CHECK by its expression: every CHECK of a new database has a name, the rule it keeps.
    @Test func everyCheckConstraintOfTheSchemaIsNamed() throws {
        try withTemporaryStore { store, _ in
            let s = try store.database.makeStatement(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE '%CHECK%'")
            var tables = 0
            while try s.step() {
                tables += 1
                let sql = s.string(at: 1) ?? ""
                // Each CHECK follows `CONSTRAINT name` (on its line, or the line before for a long rule).
                let unnamed = sql.components(separatedBy: "CHECK").dropLast().filter { before in
                    let words = before.split(whereSeparator: \.isWhitespace)
                    return words.count < 2 || words[words.count - 2] != "CONSTRAINT"
                }
                #expect(unnamed.isEmpty, "table \(s.string(at: 0) ?? ""): a CHECK without a name")
            }
            #expect(tables >= 5)
        }
    }
}
