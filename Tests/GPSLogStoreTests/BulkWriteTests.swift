// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Synchronization
import Testing

@testable import GPSLogStore

/// `bulkWrite` checks entries in Swift instead of SQLite: both must refuse exactly the same rows, with the same words.
@Suite(.ownThreads)
struct BulkWriteTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// One way to break each rule a Swift `Entry` can break. The others cannot be broken from Swift: a Bool is 0 or
    /// 1 (marked_is_flag, heading_changed_is_flag), the motion list is always written as a JSON array, and the fix
    /// mode and battery state are enums of the allowed values.
    static let breakers: [String: @Sendable (inout Entry) -> Void] = [
        "latitude_in_range": { $0.latitude = 90.000001 },
        "longitude_in_range": { $0.longitude = -180.5 },
        "horizontal_accuracy_not_negative": { $0.horizontalAccuracy = -1 },
        "vertical_accuracy_not_negative": { $0.verticalAccuracy = -0.1 },
        "speed_not_negative": { $0.speed = -3 },
        "course_in_range": { $0.course = 360 },
        "entry_id_is_uuid": { $0.id = String($0.id.dropLast()) + "éx" },  // 37 characters
        "instance_count_positive": { $0.instanceCount = 0 },
        "heading_in_range": { $0.heading = -1 },
        "heading_change_has_heading": {
            $0.isHeadingChanged = true
            $0.heading = 90
        },  // no heading time
        "label_only_on_marks": { $0.label = "Not a mark" },
        "poi_only_on_marks": { $0.isPOI = true },
        "satellites_not_negative": { $0.satellites = -1 },
        "hdop_not_negative": { $0.hdop = -2 },
        "vdop_not_negative": { $0.vdop = -2 },
        "pdop_not_negative": { $0.pdop = -2 },
        "speed_accuracy_not_negative": { $0.speedAccuracy = -1 },
        "course_accuracy_not_negative": { $0.courseAccuracy = -1 },
        "battery_level_fraction": { $0.batteryLevel = 1.01 },
    ]
    static let unbreakable: Set = [
        "marked_is_flag", "heading_changed_is_flag", "motion_is_json_array", "fix_mode_known", "battery_state_known",
        "starts_segment_is_flag", "monitoring_known", "report_trigger_known", "in_regions_is_json_array", "poi_is_flag",
    ]

    /// Every CHECK the migrated schema puts on EntryRows (behind the Entries view) has its Swift twin, in SQLite's order (a new migration's CHECK
    /// fails here until `brokenRule` knows it).
    @Test func everyCheckOfTheSchemaIsCheckedInSwift() throws {
        try withTemporaryStore { store, _ in
            let sql = try #require(
                try store.database.scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'EntryRows'")?
                    .string)
            let regex = try NSRegularExpression(pattern: #"CONSTRAINT\s+(\w+)\s+CHECK"#)
            let names = regex.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)).map {
                (sql as NSString).substring(with: $0.range(at: 1))
            }
            #expect(names.count > 20)
            #expect(names == Store.entryRuleNames, "SQLite evaluates the CHECKs in this order; brokenRule must too")
            #expect(Set(Self.breakers.keys).union(Self.unbreakable) == Set(Store.entryRuleNames))
        }
    }

    /// Rule by rule: SQLite (a plain append) and Swift (an append inside `bulkWrite`) refuse the same entry with the
    /// same message, and nothing of the refused batch is stored. Values at the edges and NaN (stored as NULL, which
    /// passes a CHECK) are accepted by both.
    @Test func swiftAndSQLiteRefuseTheSameEntriesInTheSameWords() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Rules", start: start)
            var offset: Int64 = 0
            func batch() -> [Entry] {
                offset += 100_000
                return makeEntries(count: 40, start: start.adding(milliseconds: offset), seed: UInt64(offset))
            }
            for (rule, breakIt) in Self.breakers.sorted(by: { $0.key < $1.key }) {
                var entries = batch()
                breakIt(&entries[5])
                #expect(Store.brokenRule(entries[5]) == rule)
                let before = try store.entryCount(of: s.id)
                let bySQLite = #expect(throws: StoreError.self) { try store.append(entries, to: s.id) }
                let bySwift = #expect(throws: StoreError.self) {
                    try store.bulkWrite { try store.appendInTransaction(entries, to: s.id) }
                }
                #expect(
                    bySQLite?.errorDescription?.contains("it breaks the rule \(rule)") == true,
                    "\(rule): \(String(describing: bySQLite))")
                #expect(bySwift?.errorDescription == bySQLite?.errorDescription, "\(rule)")
                #expect(try store.entryCount(of: s.id) == before)
            }
            var edges = batch()
            edges[0].latitude = -90
            edges[1].longitude = 180
            edges[2].course = 0
            edges[3].batteryLevel = 1
            edges[4].hdop = .nan
            edges[5].heading = 359.9
            edges[6].instanceCount = 1
            edges[7].satellites = 0
            edges[8].marked = true
            edges[8].label = "A mark"
            edges[9].speed = .nan
            edges[10].isHeadingChanged = true
            edges[10].heading = 12
            edges[10].headingTime = edges[10].time
            #expect(edges.allSatisfy { Store.brokenRule($0) == nil })
            let plain = edges
            var bulk = batch()
            for i in bulk.indices {
                let id = bulk[i].id
                bulk[i] = edges[i]
                bulk[i].id = id
            }
            try store.append(plain, to: s.id)
            try store.bulkWrite { _ = try store.appendInTransaction(bulk, to: s.id) }
            #expect(try store.entryCount(of: s.id) == 80)
        }
    }

    /// After a bulk write, failed or not, the connection checks in SQLite again; a bulk write's session checks hold.
    @Test func theConnectionChecksAgainAfterABulkWrite() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "After", start: start)
            var stopped = false
            do {
                try store.bulkWrite { () throws -> Void in
                    _ = try store.appendInTransaction(makeEntries(count: 40), to: s.id)
                    throw CancellationError()
                }
            } catch is CancellationError { stopped = true }
            #expect(stopped)
            #expect(try store.entryCount(of: s.id) == 0)
            try store.bulkWrite { _ = try store.appendInTransaction(makeEntries(count: 40), to: s.id) }
            #expect(try store.database.scalar("PRAGMA ignore_check_constraints")?.int64 == 0)
            #expect(try store.database.scalar("PRAGMA foreign_keys")?.int64 == 1)
            #expect(try store.database.scalar("PRAGMA temp_store")?.int64 == 0)
            var bad = makeEntries(count: 1, start: start.adding(milliseconds: 1_000_000))
            bad[0].speed = -1
            let refused = #expect(throws: StoreError.self) { try store.append(bad, to: s.id) }
            #expect(refused?.errorDescription?.contains("speed_not_negative") == true)
            let orphan = #expect(throws: StoreError.self) {
                try store.bulkWrite {
                    _ = try store.appendInTransaction(
                        makeEntries(count: 40, seed: 7), to: "00000000-0000-4000-8000-00000000dead")
                }
            }
            #expect(orphan?.errorDescription?.contains("its session does not exist") == true)
            let early = #expect(throws: StoreError.self) {
                try store.bulkWrite { try store.finishSession(id: s.id, end: start.adding(milliseconds: -1)) }
            }
            #expect(early?.errorDescription?.contains("session_ends_after_start") == true)
            #expect(try store.session(id: s.id)?.end == nil)
        }
    }
    /// Runs the same batch through SQLite's checks (a plain append, in one store) and Swift's (a bulk write, in a
    /// second store holding the same session and rows), and expects the same verdict: both store it, or both refuse
    /// it with the same error (entry index, time and reason) and store nothing of it.
    func expectSameVerdict(
        _ entries: [Entry], session: String = "0190a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b", existing: [Entry] = [],
        createSession: Bool = true, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try withTemporaryStore { bySQLite, _ in
            try withTemporaryStore { bySwift, _ in
                var outcomes: [String] = []
                for (store, bulk) in [(bySQLite, false), (bySwift, true)] {
                    let holder = try store.createSession(
                        name: "Verdict", start: start, id: createSession ? session : nil)
                    if !existing.isEmpty { try store.append(existing, to: holder.id) }
                    do {
                        if bulk {
                            try store.bulkWrite { _ = try store.appendInTransaction(entries, to: session) }
                        } else {
                            try store.append(entries, to: session)
                        }
                        outcomes.append("stored \(try store.entryCount(of: session))")
                    } catch let error as StoreError {
                        outcomes.append(error.errorDescription ?? "")
                        #expect(
                            try store.entryCount(of: holder.id) == existing.count, comment,
                            sourceLocation: sourceLocation)
                    }
                }
                #expect(outcomes[0] == outcomes[1], comment, sourceLocation: sourceLocation)
            }
        }
    }

    /// Two broken rules in one entry: both report the one SQLite evaluates first.
    @Test func twoBrokenRulesInOneEntryReportTheSameOne() throws {
        let rules = Self.breakers.keys.sorted()
        for (i, first) in rules.enumerated() {
            for second in rules[(i + 1)...] {
                var entries = makeEntries(count: 40, start: start)
                Self.breakers[first]!(&entries[7])
                Self.breakers[second]!(&entries[7])
                try expectSameVerdict(entries, "\(first) + \(second)")
            }
        }
    }

    /// The checks SQLite keeps in a bulk write (NOT NULL, UNIQUE) still speak first where SQLite's order puts them:
    /// on an earlier row, NOT NULL before a CHECK in the same row, a CHECK before UNIQUE in the same row, and
    /// anything in the first row before the missing session (a foreign key is checked at the statement's end).
    @Test func checksStillOnSpeakInSQLitesOrder() throws {
        let clean = makeEntries(count: 70, start: start)
        let older = makeEntries(count: 3, start: start.adding(milliseconds: -10_000_000), seed: 99)
        func broken(_ change: (inout [Entry]) -> Void) -> [Entry] {
            var e = clean
            change(&e)
            return e
        }
        try expectSameVerdict(
            broken {
                $0[2].latitude = .nan
                $0[50].speed = -1
            }, "NOT NULL on an earlier row")
        try expectSameVerdict(
            broken {
                $0[40].longitude = .nan
                $0[41].speed = -1
            }, "NOT NULL on the row before, past a full statement")
        try expectSameVerdict(
            broken {
                $0[3].id = older[1].id
                $0[50].speed = -1
            }, existing: older, "UNIQUE on an earlier row")
        try expectSameVerdict(
            broken {
                $0[3].id = $0[1].id
                $0[5].hdop = -1
            }, "UNIQUE inside the batch")
        try expectSameVerdict(
            broken {
                $0[5].latitude = .nan
                $0[5].speed = -1
            }, "NOT NULL and a CHECK in one row")
        try expectSameVerdict(
            broken {
                $0[5].id = older[0].id
                $0[5].speed = -1
            }, existing: older, "UNIQUE and a CHECK in one row")
        try expectSameVerdict(
            broken { $0[0].speed = -1 }, createSession: false, "a CHECK in the first row of a missing session")
        try expectSameVerdict(
            broken { $0[0].id = older[2].id }, existing: older, createSession: false,
            "UNIQUE in the first row of a missing session")
        try expectSameVerdict(
            broken { $0[0].latitude = .nan }, createSession: false, "NOT NULL in the first row of a missing session")
        try expectSameVerdict(
            broken { $0[9].speed = -1 }, createSession: false, "a CHECK in a later row of a missing session")
        try expectSameVerdict(clean, createSession: false, "a missing session")
        try expectSameVerdict([], createSession: false, "nothing for a missing session")
        try expectSameVerdict(clean, "a clean batch")
    }

    /// Values at the edges, infinities, NaN where it matters, and ids whose SQL length differs from their bytes.
    @Test func edgeValuesGetTheSameVerdict() throws {
        let cases: [(String, (inout Entry) -> Void)] = [
            ("latitude +inf", { $0.latitude = .infinity }), ("latitude -inf", { $0.latitude = -.infinity }),
            ("longitude +inf", { $0.longitude = .infinity }), ("speed -inf", { $0.speed = -.infinity }),
            ("hdop +inf", { $0.hdop = .infinity }), ("course +inf", { $0.course = .infinity }),
            ("battery level +inf", { $0.batteryLevel = .infinity }), ("course -0", { $0.course = -0.0 }),
            ("latitude 0", { $0.latitude = 0 }), ("latitude 90", { $0.latitude = 90 }),
            ("latitude -90", { $0.latitude = -90 }),
            ("longitude -180", { $0.longitude = -180 }), ("longitude 180", { $0.longitude = 180 }),
            ("course just under 360", { $0.course = 360.nextDown }), ("battery 0", { $0.batteryLevel = 0 }),
            (
                "heading NaN on a heading change",
                {
                    $0.isHeadingChanged = true
                    $0.heading = .nan
                    $0.headingTime = $0.time
                }
            ),
            (
                "heading change without time",
                {
                    $0.isHeadingChanged = true
                    $0.heading = 10
                }
            ),
            (
                "heading change complete",
                {
                    $0.isHeadingChanged = true
                    $0.heading = 0
                    $0.headingTime = $0.time
                }
            ),
            ("36 non-ASCII characters", { $0.id = String(repeating: "é", count: 30) + "ab€cd😀" }),
            ("35 characters", { $0.id = String($0.id.dropLast()) }),
            ("NUL inside the first 36", { $0.id = String($0.id.prefix(10)) + "\u{0}" + String($0.id.dropFirst(11)) }),
            ("NUL after 36 characters", { $0.id = $0.id + "\u{0}tail" }),
            ("a label without a mark", { $0.label = "x" }),
            (
                "a label on a mark",
                {
                    $0.label = "x"
                    $0.marked = true
                }
            ),
        ]
        for (name, change) in cases {
            var entries = makeEntries(count: 40, start: start)
            change(&entries[6])
            try expectSameVerdict(entries, "\(name)")
        }
    }
    /// Alone on the database, a large (or unknown-size) bulk write goes through a rollback journal with synchronous
    /// FULL, and the connection is back in the WAL with synchronous NORMAL afterwards, failed or not. With another
    /// connection open it stays in the WAL, and that connection keeps reading while the bulk write runs.
    @Test func aBulkWriteAloneTakesARollbackJournalAndGivesItBack() throws {
        try withTemporaryStore { store, path in
            func modes(_ s: Store) throws -> String {
                let journal = try s.database.scalar("PRAGMA journal_mode")?.string ?? "?"
                return "\(journal) \(try s.database.scalar("PRAGMA synchronous")?.int64 ?? -1)"
            }
            let s = try store.createSession(name: "Journal", start: start)
            #expect(try modes(store) == "wal 1")
            try store.bulkWrite {
                #expect(try modes(store) == "delete 2")
                _ = try store.appendInTransaction(makeEntries(count: 100, start: start), to: s.id)
            }
            #expect(try modes(store) == "wal 1")
            // A small input stays in the WAL (the switch and synced commit would cost more than they save).
            try store.bulkWrite(expectedBytes: Store.rollbackJournalMinimumBytes - 1) { () throws -> Void in
                #expect(try modes(store) == "wal 1")
            }
            try store.bulkWrite(expectedBytes: Store.rollbackJournalMinimumBytes) { () throws -> Void in
                #expect(try modes(store) == "delete 2")
            }
            _ = try? store.bulkWrite { () throws -> Void in
                _ = try store.appendInTransaction(
                    makeEntries(count: 100, start: start.adding(milliseconds: 1_000_000), seed: 2), to: s.id)
                throw CancellationError()
            }
            #expect(try modes(store) == "wal 1")
            #expect(try store.entryCount(of: s.id) == 100)

            let reader = try Store(path: path)
            defer { reader.close() }
            try store.bulkWrite {
                #expect(try modes(store) == "wal 1")
                _ = try store.appendInTransaction(
                    makeEntries(count: 100, start: start.adding(milliseconds: 2_000_000), seed: 3), to: s.id)
                #expect(
                    try reader.entryCount(of: s.id) == 100, "a reader sees the last commit while the bulk write runs")
            }
            #expect(try reader.entryCount(of: s.id) == 200)
        }
    }

    /// A process that opens the database while a bulk write holds the rollback journal waits for it, and says the
    /// database is busy, naming it, when its wait runs out.
    @Test func openingDuringARollbackJournalBulkWriteSaysBusy() throws {
        try withTemporaryStore { store, path in
            let s = try store.createSession(name: "Busy", start: start)
            let clock = ContinuousClock()
            var waited = Duration.zero
            let refused = try store.bulkWrite { () throws -> StoreError? in
                _ = try store.appendInTransaction(makeEntries(count: 100, start: start), to: s.id)
                let began = clock.now
                defer { waited = clock.now - began }
                return #expect(throws: StoreError.self) { _ = try Store(path: path, busyTimeout: 200) }
            }
            #expect(refused == .busy(path: path, milliseconds: 200))
            #expect(waited >= .milliseconds(200), "it waited its whole busy timeout, not \(waited)")
            #expect(refused?.errorDescription?.contains("stayed locked for 200 ms") == true)
            let after = try Store(path: path, busyTimeout: 200)
            defer { after.close() }
            #expect(try after.entryCount(of: s.id) == 100)
        }
    }
    /// A process that opens the database while a bulk write holds the rollback journal gets in once it commits.
    @Test func openingDuringARollbackJournalBulkWriteWaitsForTheCommit() throws {
        try withTemporaryStore { store, path in
            let s = try store.createSession(name: "Wait", start: start)
            let opened = DispatchSemaphore(value: 0)
            let result = Mutex<Result<Int, Error>?>(nil)
            try store.bulkWrite {
                _ = try store.appendInTransaction(makeEntries(count: 100, start: start), to: s.id)
                #expect(try store.database.scalar("PRAGMA journal_mode")?.string == "delete")
                let id = s.id
                Thread.detachNewThread {
                    let outcome = Result { () throws -> Int in
                        let other = try Store(path: path, busyTimeout: 10_000)
                        defer { other.close() }
                        return try other.entryCount(of: id)
                    }
                    result.withLock { $0 = outcome }
                    opened.signal()
                }
                usleep(300_000)  // the other opener is waiting meanwhile
                #expect(result.withLock { $0 } == nil, "it did not get in before the commit")
            }
            #expect(opened.wait(timeout: .now() + 10) == .success)
            #expect(try result.withLock { try $0?.get() } == 100, "it read the committed import")
        }
    }
}
