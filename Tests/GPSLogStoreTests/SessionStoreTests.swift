// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

@Suite(.ownThreads)
struct SessionStoreTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    @Test func createsFinishesRenamesAndDeletesWithItsEntries() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "  Morning ride ", start: start, mode: .bicycle)
            #expect(s.name == "Morning ride" && s.end == nil && s.mode == .bicycle)
            try store.append(makeEntries(count: 10), to: s.id)
            try store.finishSession(id: s.id, end: start.adding(milliseconds: 9000))
            try store.renameSession(id: s.id, to: "Evening ride")
            let again = try store.session(id: s.id)
            #expect(again?.name == "Evening ride" && again?.end == start.adding(milliseconds: 9000))
            #expect(try store.deleteSession(id: s.id) == 10)
            #expect(try store.database.scalar("SELECT COUNT(*) FROM Entries")?.int64 == 0)
            #expect(try store.sessions().isEmpty)
        }
    }

    @Test func resolvesByIDNameAndUniquePrefixAndListsCandidatesOtherwise() throws {
        try withTemporaryStore { store, _ in
            let a = try store.createSession(name: "Commute", start: start, id: "aaaa1111-0000-4000-8000-000000000001")
            let b = try store.createSession(
                name: "Commute", start: start.adding(milliseconds: 1), id: "aaaa2222-0000-4000-8000-000000000002")
            let c = try store.createSession(
                name: "Sail", start: start.adding(milliseconds: 2), id: "bbbb3333-0000-4000-8000-000000000003")
            #expect(try store.resolveSession(a.id.uppercased()) == a)
            #expect(try store.resolveSession("Sail") == c)
            #expect(try store.resolveSession("aaaa2") == b)
            let ambiguousName = #expect(throws: StoreError.self) { _ = try store.resolveSession("Commute") }
            #expect(
                ambiguousName
                    == .ambiguousSession(query: "Commute", candidates: [Store.describe(a), Store.describe(b)]))
            let ambiguousPrefix = #expect(throws: StoreError.self) { _ = try store.resolveSession("aaaa") }
            #expect(ambiguousPrefix?.errorDescription?.contains("matches 2 sessions") == true)
            let unknown = #expect(throws: StoreError.self) { _ = try store.resolveSession("commut") }
            #expect(unknown == .sessionNotFound(query: "commut", candidates: [Store.describe(a), Store.describe(b)]))
        }
    }

    @Test func constraintViolationsNameTheRuleAndTheEntry() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Bad data", start: start)
            var entries = makeEntries(count: 5)
            entries[3].latitude = 91
            let error = #expect(throws: StoreError.self) { try store.append(entries, to: s.id) }
            #expect(
                error?.errorDescription?.hasPrefix(
                    "entry 4 of the batch (time 2023-11-14T22:13:23Z) was refused: it breaks the rule latitude_in_range"
                ) == true)
            entries[3].latitude = 52
            entries[1].course = 360
            let course = #expect(throws: StoreError.self) { try store.append(entries, to: s.id) }
            #expect(course?.errorDescription?.contains("course_in_range") == true)
            entries[1].course = 0
            entries[2].speed = .nan
            entries[2].latitude = .nan
            let nan = #expect(throws: StoreError.self) { try store.append(entries, to: s.id) }
            #expect(nan?.errorDescription?.contains("NOT NULL constraint failed: Entries.Latitude") == true)
            let orphan = #expect(throws: StoreError.self) {
                try store.append(makeEntries(count: 1), to: "00000000-0000-4000-8000-00000000dead")
            }
            #expect(orphan?.errorDescription?.contains("its session does not exist") == true)
            let emptyName = #expect(throws: StoreError.self) { try store.createSession(name: " ", start: start) }
            #expect(emptyName == .invalidSession(reason: "the name is empty"))
            let backwards = #expect(throws: StoreError.self) {
                try store.finishSession(id: s.id, end: start.adding(milliseconds: -1))
            }
            #expect(backwards?.errorDescription?.contains("session_ends_after_start") == true)
        }
    }

    @Test func aFailedBatchRollsBackWhole() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Half", start: start)
            try store.append(makeEntries(count: 3, seed: 1), to: s.id)
            var batch = makeEntries(count: 1000, start: start.adding(milliseconds: 10_000), seed: 2)
            batch[999].horizontalAccuracy = -1
            #expect(throws: StoreError.self) { try store.append(batch, to: s.id) }
            #expect(try store.summary(of: s).entryCount == 3)
            #expect(!store.database.isInTransaction)
        }
    }

    /// Large batches go in 32 rows per INSERT: the keys handed back are the rows' own, and a refused row inside a
    /// multi-row statement is still named by its place in the batch.
    @Test func multiRowInsertsGiveTheRowsKeysAndNameTheRefusedEntry() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Many", start: start)
            try store.append(makeEntries(count: 7, seed: 1), to: s.id)
            let batch = makeEntries(count: 100, start: start.adding(milliseconds: 10_000), seed: 2)
            let keys = try store.append(batch, to: s.id)
            var stored: [(Int64, String)] = []
            let rows = try store.database.makeStatement("SELECT Key, EntryID FROM Entries WHERE Key > 7 ORDER BY Key")
            while try rows.step() { stored.append((rows.int64(at: 0)!, rows.string(at: 1)!)) }
            #expect(keys == stored.map(\.0))
            #expect(batch.map(\.id) == stored.map(\.1))

            var bad = makeEntries(count: 100, start: start.adding(milliseconds: 500_000), seed: 3)
            bad[70].latitude = 91
            let error = #expect(throws: StoreError.self) { try store.append(bad, to: s.id) }
            #expect(error?.errorDescription?.hasPrefix("entry 71 of the batch") == true)
            #expect(error?.errorDescription?.contains("latitude_in_range") == true)
            var twice = makeEntries(count: 40, start: start.adding(milliseconds: 900_000), seed: 4)
            twice[20].id = twice[3].id
            let duplicate = #expect(throws: StoreError.self) { try store.append(twice, to: s.id) }
            #expect(duplicate?.errorDescription?.hasPrefix("entry 21 of the batch") == true)
            #expect(duplicate?.errorDescription?.contains("same EntryID") == true)
            let orphan = #expect(throws: StoreError.self) {
                try store.append(makeEntries(count: 40, seed: 99), to: "00000000-0000-4000-8000-00000000dead")
            }
            #expect(orphan?.errorDescription?.contains("its session does not exist") == true)
            #expect(try store.entryCount(of: s.id) == 107)
        }
    }

    /// A `.track` cursor reads what a drawn track needs, the same as the full one, and leaves the rest out.
    @Test func aTrackCursorReadsTheTrackFieldsOnly() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Fields", start: start)
            var entries = makeEntries(count: 50, seed: 8)
            entries[3].marked = true
            entries[3].label = "Mark"
            entries[4].vdop = 1.5
            entries[4].pdop = 2.5
            entries[5].address = "Somewhere"
            entries[6].instanceCount = 4
            try store.append(entries, to: s.id)
            var all: [Entry] = []
            var track: [Entry] = []
            try store.entries(of: s.id).forEach { all.append($0) }
            try store.entries(of: s.id, fields: .track).forEach { track.append($0) }
            #expect(all.count == 50 && track.count == 50)
            for (a, t) in zip(all, track) {
                var trimmed = a
                trimmed.id = ""
                trimmed.horizontalAccuracy = nil
                trimmed.verticalAccuracy = nil
                trimmed.address = nil
                trimmed.label = nil
                #expect(t == trimmed)
            }
        }
    }

    @Test func theCursorStreamsInTimeOrderWithinBounds() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Order", start: start)
            let entries = makeEntries(count: 50)
            try store.append(entries.reversed(), to: s.id)
            var times: [Int64] = []
            try store.entries(of: s.id).forEach { times.append($0.time.milliseconds) }
            #expect(times == entries.map(\.time.milliseconds))
            var bounded = 0
            try store.entries(of: s.id, from: entries[10].time, to: entries[19].time).forEach { _ in bounded += 1 }
            #expect(bounded == 10)
            let first = try store.entries(of: s.id).next()
            #expect(
                first
                    == {
                        var e = entries[0]
                        e.key = first?.key
                        return e
                    }())
        }
    }

    @Test func everyColumnRoundTrips() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Overland", start: start)
            let entry = Entry(
                id: "018bd2c3-8000-7000-8000-000000000001", latitude: 37.3318, longitude: -122.030581, altitude: 0,
                horizontalAccuracy: 30, verticalAccuracy: 4, time: start, speed: 4, course: 359.9,
                address: "1 Infinite Loop",
                marked: true, label: "Café <&> \"quotes\" 🚲", instanceCount: 2, heading: 12.5, isHeadingChanged: true,
                headingTime: start, satellites: 11, hdop: 0.9, vdop: 1.2, pdop: 1.5, fixMode: .threeD,
                speedAccuracy: 0.5,
                courseAccuracy: 10, motion: ["driving", "stationary"], batteryState: .charging, batteryLevel: 0.89,
                deviceID: "phone", wifi: "launchpad")
            let keys = try store.append([entry], to: s.id)
            var expected = entry
            expected.key = keys[0]
            #expect(try store.entry(id: entry.id) == expected)
            #expect(try store.updateAddress(entryKey: keys[0], address: "Cupertino"))
            #expect(try store.entry(id: entry.id)?.address == "Cupertino")
            #expect(try !store.updateAddress(entryKey: 999_999, address: "nowhere"))
        }
    }

    @Test func summariesCountAndMeasureTheSession() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Line", start: start)
            var entries = makeEntries(count: 11, step: 10)
            entries[4].speed = 25
            entries[5].instanceCount = 4
            var mark = entries[10]
            mark.id = "018bd2c3-8000-7000-8000-0000000000ff"
            mark.marked = true
            mark.label = "End"
            mark.longitude = 6  // a manual mark far away: not part of the track's length
            try store.append(entries + [mark], to: s.id)
            let summary = try store.summary(of: s)
            #expect(summary.entryCount == 12 && summary.trackPointCount == 11 && summary.markCount == 1)
            #expect(summary.fixCount == 14)
            #expect(abs(summary.distance - 100) < 0.5)
            #expect(summary.maxSpeed == 25)
            #expect(summary.firstTime == entries[0].time && summary.lastTime == entries[10].time)
            #expect(summary.maxLongitude == 6 && summary.minLatitude == 52)
            #expect(abs((summary.averageSpeed ?? 0) - 10) < 0.1)
            #expect(try store.marks(of: s.id).all().map(\.label) == ["End"])
        }
    }
    /// The track's length follows time order (not insertion order; ties in insertion order) and skips marks and
    /// heading changes: the same sum as walking the sorted track point by point.
    @Test func theTrackLengthWalksThePointsInTimeOrder() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Zigzag", start: start)
            #expect(try store.trackLength(sessionID: s.id) == 0)
            var entries = makeEntries(count: 60, step: 35)
            for i in entries.indices where i % 3 == 1 { entries[i].longitude = 5.01 }  // a zigzag
            entries[20].time = entries[19].time  // a tie: insertion order decides
            entries[30].marked = true
            entries[30].longitude = 7
            entries[40].isHeadingChanged = true
            entries[40].heading = 90
            entries[40].headingTime = entries[40].time
            entries[40].latitude = 60
            var rng = SplitMix64(seed: 11)
            let shuffled = entries.shuffled(using: &rng)
            try store.append(shuffled, to: s.id)
            let track = shuffled.enumerated()
                .filter { !$0.element.marked && !$0.element.isHeadingChanged }
                .sorted { ($0.element.time.milliseconds, $0.offset) < ($1.element.time.milliseconds, $1.offset) }
                .map(\.element)
            var expected = 0.0
            var nanometres: Int64 = 0
            for (a, b) in zip(track, track.dropFirst()) {
                let step = Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
                expected += step
                nanometres += Int64((step * 1e9).rounded())
            }
            #expect(expected > 2_000)
            #expect(try store.trackLength(sessionID: s.id) == expected)
            // The kept length: each step rounded to the nanometre, so that it adds up the same in any order.
            #expect(try store.summary(of: s).distance == Double(nanometres) / 1e9)
            #expect(abs(Double(nanometres) / 1e9 - expected) < 1e-6)

            let single = try store.createSession(name: "Single", start: start)
            try store.append(makeEntries(count: 1, seed: 5), to: single.id)
            #expect(try store.trackLength(sessionID: single.id) == 0)
        }
    }
}
