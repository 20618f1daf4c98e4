// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// EntryRows with the rare columns in Extras (migration 21): every value reads back as written, through the Store and
/// through the Entries view, also when written through the view; a version 20 database is copied whole.
@Suite(.ownThreads)
struct LeanRowsTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// The Entries columns Extras holds, as the view shows them.
    static let rareColumns = EntryExtras.columns.joined(separator: ", ")

    /// Every Entries column, in the view's order.
    static let allColumns = """
        Key, Session, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course, \
        Address, Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp, Label, Satellites, HDOP, \
        VDOP, PDOP, FixMode, SpeedAccuracy, CourseAccuracy, Motion, BatteryState, BatteryLevel, DeviceID, Wifi, \
        StartsSegment, Monitoring, ReportTrigger, InRegions, Tag, IsPOI
        """

    /// Entries with every rare column set, to values that are hard to write as text: reals of 17 significant
    /// digits, tiny and huge ones, an infinity, -0, texts with quotes, backslashes, control characters and emoji.
    func entriesWithEveryRareColumn(count: Int) -> [Entry] {
        var rng = SplitMix64(seed: 23)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        let texts = ["plain", "a \"quoted\" \\ back/slash", "tab\tnew\nline\u{1}", "Zürich 🚲", ""]
        return makeEntries(count: count, start: start).enumerated().map { i, entry in
            var e = entry
            e.marked = i % 3 == 0
            e.label = e.marked ? texts[i % texts.count] : nil
            e.isPOI = e.marked && i % 2 == 0
            e.heading = [unit() * 360, 0, -0.0, 359.99999999999994, 1e-300][i % 5]
            e.isHeadingChanged = i % 4 == 1
            e.headingTime = start.adding(milliseconds: Int64(i) * 7)
            e.speedAccuracy = [unit() * 1e6, .infinity, 5e-324, 0.1][i % 4]
            e.courseAccuracy = i % 6 == 0 ? nil : unit()
            e.motion = i % 2 == 0 ? ["walking", texts[i % texts.count]] : []
            e.batteryState = [.charging, .full, .unplugged, .unknown][i % 4]
            e.batteryLevel = [unit(), 1, 0][i % 3]
            e.deviceID = texts[(i + 1) % texts.count]
            e.wifi = i % 5 == 0 ? nil : texts[(i + 2) % texts.count]
            e.startsSegment = i % 7 == 0
            e.monitoring = [.quiet, .manual, .significant, .move][i % 4]
            e.trigger = [.ping, .circularRegion, .beacon, .timer][i % 4]
            e.inRegions = i % 3 == 1 ? ["Home", texts[i % texts.count]] : nil
            e.tag = i % 2 == 1 ? texts[(i + 3) % texts.count] : nil
            return e
        }
    }

    /// Every row of the view's `columns`, each value with its type, in key order.
    func rows(_ db: Database, _ columns: String) throws -> [[SQLiteValue]] { try EntriesViewTests().rows(db, columns) }

    /// The view's rare columns for `e`, as the table of migration 20 held them.
    func expectedRareColumns(_ e: Entry) -> [SQLiteValue] {
        func real(_ v: Double?) -> SQLiteValue { v.map { $0.isNaN ? .null : .real($0 == 0 ? 0 : $0) } ?? .null }
        return [
            real(e.heading), SQLiteValue(e.headingTime?.milliseconds), SQLiteValue(e.label), real(e.speedAccuracy),
            real(e.courseAccuracy), SQLiteValue(e.motion.map(Store.encodeMotion)),
            SQLiteValue(e.batteryState?.rawValue),
            real(e.batteryLevel), SQLiteValue(e.deviceID), SQLiteValue(e.wifi), SQLiteValue(e.startsSegment),
            SQLiteValue(e.monitoring.map { Int64($0.rawValue) }), SQLiteValue(e.trigger?.rawValue),
            SQLiteValue(e.inRegions.map(Store.encodeMotion)), SQLiteValue(e.tag), SQLiteValue(e.isPOI),
        ]
    }

    @Test func everyRareColumnReadsBackAsWrittenThroughTheStoreAndTheView() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Rare", start: start)
            let entries = entriesWithEveryRareColumn(count: 400)
            let plain = Array(entries[..<200])
            try store.append(plain, to: s.id)
            try store.bulkWrite { _ = try store.appendInTransaction(Array(entries[200...]), to: s.id) }
            let read = try store.entries(of: s.id).all()
            #expect(read.count == entries.count)
            for (r, e) in zip(read, entries) {
                var expected = e
                expected.key = r.key
                #expect(r == expected)
            }
            let view = try rows(store.database, Self.rareColumns)
            #expect(view == entries.map(expectedRareColumns))
            // A track read finds the segment starts.
            let track = try store.entries(of: s.id, fields: .track).all()
            #expect(track.map(\.startsSegment) == entries.map(\.startsSegment))
            // A plain track point has no Extras at all.
            let plainRow = try store.append(
                makeEntries(count: 1, start: start.adding(milliseconds: 9_000_000)), to: s.id)
            #expect(
                try store.database.scalar("SELECT Extras FROM EntryRows WHERE Key = ?", [.integer(plainRow[0])])
                    == .null)
        }
    }

    /// What a user's sqlite3 writes through the view reads back the same, reals of 17 digits and lists that are not
    /// compact JSON included; an edit of another column leaves the rare ones as they were.
    @Test func writesThroughTheViewKeepEveryRareValue() throws {
        try withTemporaryStore { store, path in
            let s = try store.createSession(name: "By hand", start: start)
            let user = try Database(path: path)
            defer { user.close() }
            let values: [SQLiteValue] = [
                .real(123.45678901234567), .integer(1_700_000_000_123), .text("Say \"hi\" \u{1} 🚲 \\ /"),
                .real(0.1 + 0.2),
                .real(.infinity), .text(#"[ "walking",  "running" ]"#), .text("full"), .real(0.53), .text("phone"),
                .text("home"), .integer(1), .integer(-1), .text("u"), .text(#"["Home"]"#), .text("tag"), .integer(1),
            ]
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            try user.run(
                """
                INSERT INTO Entries (Session, Latitude, Longitude, TimeStamp, EntryID, Marked, IsHeadingChanged, \
                \(Self.rareColumns))
                VALUES ('\(s.id)', 52.5, 5.5, \(start.milliseconds), '0f0f0f0f-1111-4222-8333-444455556666', 1, 1, \
                \(placeholders))
                """, values)
            #expect(try rows(user, Self.rareColumns) == [values])
            // SQLite's escapes, read by the Store.
            #expect(try store.entries(of: s.id).next()?.label == "Say \"hi\" \u{1} 🚲 \\ /")
            try user.execute("UPDATE Entries SET Address = 'Somewhere'")
            #expect(try rows(user, Self.rareColumns) == [values])
            try user.run("UPDATE Entries SET BatteryLevel = ?, Label = NULL", [.real(2.0 / 3)])
            var changed = values
            changed[7] = .real(2.0 / 3)
            changed[2] = .null
            #expect(try rows(user, Self.rareColumns) == [changed])
            let entry = try #require(try store.entries(of: s.id).next())
            #expect(entry.heading == 123.45678901234567 && entry.batteryLevel == 2.0 / 3 && entry.label == nil)
            #expect(entry.deviceID == "phone" && entry.monitoring == .quiet && entry.trigger == .user && entry.isPOI)
            #expect(entry.motion == ["walking", "running"] && entry.courseAccuracy == .infinity)
            #expect(entry.speedAccuracy == 0.1 + 0.2 && entry.headingTime?.milliseconds == 1_700_000_000_123)
            // The rules hold for writes through the view.
            let error = #expect(throws: SQLiteError.self) {
                try user.execute("UPDATE Entries SET Heading = 360")
            }
            #expect(error?.message.contains("heading_in_range") == true)
        }
    }

    /// A version 20 database (compact rows, every column its own) with every rare column set is copied into lean
    /// rows: the view gives every row back, value for value, and the upgrade reports its progress.
    @Test func aVersion20DatabaseIsCopiedWhole() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/v20.sqlite"
            let entries = entriesWithEveryRareColumn(count: 300)
            let before: [[SQLiteValue]]
            do {
                let db = try Database(path: path)
                defer { db.close() }
                try Migrations.migrate(db, upTo: 20)
                try db.execute(
                    "INSERT INTO Sessions (ID, StartTime, Name) VALUES ('00000000-0000-4000-8000-000000000001', 0, 'Old')"
                )
                let columns = """
                    Session, Latitude, Longitude, TimeStamp, EntryID, Marked, IsHeadingChanged, InstanceCount, \
                    \(Self.rareColumns)
                    """
                let insert = try db.makeStatement(
                    "INSERT INTO Entries (\(columns)) VALUES (\(Array(repeating: "?", count: 24).joined(separator: ", ")))"
                )
                for e in entries {
                    insert.reset()
                    try insert.bind(
                        [
                            .text("00000000-0000-4000-8000-000000000001"), .real(e.latitude), .real(e.longitude),
                            .integer(e.time.milliseconds), .text(e.id), SQLiteValue(e.marked),
                            SQLiteValue(e.isHeadingChanged), .integer(Int64(e.instanceCount)),
                        ] + expectedRareColumns(e))
                    _ = try insert.step()
                }
                // A list written by hand, not as compact JSON.
                try db.execute(#"UPDATE Entries SET Motion = '[ "a" ]' WHERE Key = 2"#)
                before = try rows(db, Self.allColumns)
            }
            var reports: [UpgradeProgress] = []
            let store = try Store(path: path) { reports.append($0) }
            defer { store.close() }
            #expect(try store.database.userVersion() == Migrations.latestVersion)
            #expect(try rows(store.database, Self.allColumns) == before)
            #expect(reports.contains { $0.step == Migrations.leanCopyStep && $0.done == entries.count })
            #expect(try store.integrityProblems().isEmpty)
            #expect(try store.checkSummaries().repairs.isEmpty)
        }
    }
}
