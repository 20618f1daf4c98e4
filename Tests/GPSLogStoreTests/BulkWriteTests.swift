// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `bulkWrite` checks entries in Swift instead of SQLite: both must refuse exactly the same rows, with the same words.
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
        "heading_change_has_heading": { $0.isHeadingChanged = true; $0.heading = 90 },  // no heading time
        "label_only_on_marks": { $0.label = "Not a mark" },
        "satellites_not_negative": { $0.satellites = -1 },
        "hdop_not_negative": { $0.hdop = -2 },
        "vdop_not_negative": { $0.vdop = -2 },
        "pdop_not_negative": { $0.pdop = -2 },
        "speed_accuracy_not_negative": { $0.speedAccuracy = -1 },
        "course_accuracy_not_negative": { $0.courseAccuracy = -1 },
        "battery_level_fraction": { $0.batteryLevel = 1.01 },
    ]
    static let unbreakable: Set = ["marked_is_flag", "heading_changed_is_flag", "motion_is_json_array", "fix_mode_known", "battery_state_known"]

    /// Every CHECK the migrated schema puts on Entries has its Swift twin (a new migration's CHECK fails here until
    /// `brokenRule` knows it).
    @Test func everyCheckOfTheSchemaIsCheckedInSwift() throws {
        try withTemporaryStore { store, _ in
            let sql = try #require(try store.database.scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'Entries'")?.string)
            let regex = try NSRegularExpression(pattern: #"CONSTRAINT\s+(\w+)\s+CHECK"#)
            let names = regex.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)).map { (sql as NSString).substring(with: $0.range(at: 1)) }
            #expect(names.count > 20)
            #expect(Set(names) == Set(Store.entryRuleNames))
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
                let bySwift = #expect(throws: StoreError.self) { try store.bulkWrite { try store.appendInTransaction(entries, to: s.id) } }
                #expect(bySQLite?.errorDescription?.contains("it breaks the rule \(rule)") == true, "\(rule): \(String(describing: bySQLite))")
                #expect(bySwift?.errorDescription == bySQLite?.errorDescription, "\(rule)")
                #expect(try store.entryCount(of: s.id) == before)
            }
            var edges = batch()
            edges[0].latitude = -90; edges[1].longitude = 180; edges[2].course = 0; edges[3].batteryLevel = 1
            edges[4].hdop = .nan; edges[5].heading = 359.9; edges[6].instanceCount = 1; edges[7].satellites = 0
            edges[8].marked = true; edges[8].label = "A mark"; edges[9].speed = .nan
            edges[10].isHeadingChanged = true; edges[10].heading = 12; edges[10].headingTime = edges[10].time
            #expect(edges.allSatisfy { Store.brokenRule($0) == nil })
            let plain = edges
            var bulk = batch()
            for i in bulk.indices { let id = bulk[i].id; bulk[i] = edges[i]; bulk[i].id = id }
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
                try store.bulkWrite { _ = try store.appendInTransaction(makeEntries(count: 40, seed: 7), to: "00000000-0000-4000-8000-00000000dead") }
            }
            #expect(orphan?.errorDescription?.contains("its session does not exist") == true)
            let early = #expect(throws: StoreError.self) { try store.bulkWrite { try store.finishSession(id: s.id, end: start.adding(milliseconds: -1)) } }
            #expect(early?.errorDescription?.contains("session_ends_after_start") == true)
            #expect(try store.session(id: s.id)?.end == nil)
        }
    }
}
