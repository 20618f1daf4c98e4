// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The kept figures (SessionSummaries) equal a full recount from the entries after every kind of write: appends in
/// order and out of it, edits, bulk imports, received batches, deletions, failed writes, writes from outside, and an
/// upgrade from before the table existed.
@Suite(.ownThreads)
struct KeptSummaryTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// The kept row and a recount, which must be equal; the recount is returned for further checks.
    @discardableResult
    func expectKept(
        _ store: Store, _ session: Session, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws -> KeptSummary
    {
        let kept = try store.keptSummary(sessionKey: session.key)
        let recount = try store.recountSummary(sessionKey: session.key)
        #expect(kept == recount, comment, sourceLocation: sourceLocation)
        return recount
    }

    /// Two sessions of `entries` track points each.
    func twoSessions(_ store: Store, _ first: String, _ second: String, entries: Int) throws -> (Session, Session) {
        let a = try store.createSession(name: first, start: start)
        let b = try store.createSession(name: second, start: start)
        try store.append(makeEntries(count: entries), to: a.id)
        try store.append(makeEntries(count: entries, seed: 2), to: b.id)
        return (a, b)
    }

    /// Entries of every kind, at random times (ties included), in random order: track points, marks, heading
    /// changes, rows that are both a mark and a heading change, NaN and missing speeds.
    func mixedEntries(count: Int, seed: UInt64) -> [Entry] {
        var rng = SplitMix64(seed: seed)
        return makeEntries(count: count, seed: seed).map { e in
            var e = e
            e.time = start.adding(milliseconds: Int64(rng.next() % 200) * 500)
            e.latitude = 52 + Double(rng.next() % 10_000) / 100_000
            e.longitude = 5 + Double(rng.next() % 10_000) / 100_000
            switch rng.next() % 10 {
            case 0: e.marked = true
            case 1:
                e.isHeadingChanged = true
                e.heading = 90
                e.headingTime = e.time
            case 2:
                e.marked = true
                e.isHeadingChanged = true
                e.heading = 180
                e.headingTime = e.time
            case 3: e.speed = nil
            case 4: e.speed = .nan
            default: e.speed = Double(rng.next() % 300) / 10
            }
            e.instanceCount = Int(rng.next() % 3) + 1
            return e
        }
    }

    @Test func appendsInTimeOrderKeepTheRecount() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Ride", start: start)
            let empty = try expectKept(store, s)
            #expect(empty.entryCount == 0 && empty.last == nil)
            var entries = makeEntries(count: 200, step: 7)
            entries[50].time = entries[49].time  // a tie: insertion order decides
            entries[60].marked = true
            entries[70].isHeadingChanged = true
            entries[70].heading = 10
            entries[70].headingTime = entries[70].time
            for batch in stride(from: 0, to: entries.count, by: 20) {
                try store.append(Array(entries[batch..<batch + 20]), to: s.id)
                try expectKept(store, s, "after the batch at \(batch)")
            }
            let figures = try expectKept(store, s)
            #expect(figures.entryCount == 200 && figures.trackPoints == 198 && figures.marks == 1)
            #expect(
                abs(Double(figures.lengthNanometres) / 1e9 - 199 * 7) < 0.01,
                "a straight line, marks and heading changes skipped")
        }
    }

    /// Points written into the middle of the track (a phone's late points, a tie with an old point, points before
    /// the first one, runs of them between two old points) change the length as a recount does, exactly.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func writesOutOfOrderKeepTheRecount(seed: UInt64) throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Late points", start: start)
            var rng = SplitMix64(seed: seed)
            var rest = mixedEntries(count: 400, seed: seed)
            while !rest.isEmpty {
                let n = min(rest.count, Int(rng.next() % 25) + 1)
                try store.append(Array(rest.prefix(n)), to: s.id)
                rest.removeFirst(n)
                try expectKept(store, s, "seed \(seed), \(rest.count) left")
            }
            let figures = try expectKept(store, s)
            #expect(figures.entryCount == 400 && figures.lengthNanometres > 0)
        }
    }

    @Test func instanceCountEditsKeepTheRecount() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "Standing", start: start)
            var entries = makeEntries(count: 5)
            entries[4].marked = true
            let keys = try store.append(entries, to: s.id)
            try store.setInstanceCount(entryKey: keys[1], to: 7)
            #expect(try expectKept(store, s).fixes == 4 + 6)
            try store.setInstanceCount(entryKey: keys[4], to: 3)  // a mark: not part of the track's fixes
            #expect(try expectKept(store, s).fixes == 4 + 6)
            try store.write { try store.setInstanceCount(entryKey: keys[1], to: 2) }
            #expect(try expectKept(store, s).fixes == 5)
        }
    }

    @Test func bulkWritesAndReceivedBatchesKeepTheRecount() throws {
        try withTemporaryStore { store, _ in
            let imported = try store.bulkWrite(expectedBytes: 1) {
                let s = try store.createSession(name: "Import", start: start)
                for batch in 0..<5 {
                    try store.appendInTransaction(
                        mixedEntries(count: 300, seed: UInt64(batch + 10)), to: s.id)
                }
                try store.finishSession(id: s.id, end: start.adding(milliseconds: 200_000))
                return s
            }
            try expectKept(store, imported)

            // serve: batches in any order, resent ones (duplicates by time are skipped), late points.
            var rng = SplitMix64(seed: 3)
            let points = mixedEntries(count: 500, seed: 20).filter { !$0.marked && !$0.isHeadingChanged }
            for _ in 0..<12 {
                let batch = (0..<40).map { _ in points[Int(rng.next() % UInt64(points.count))] }.map { e -> Entry in
                    var e = e
                    e.id = ""
                    return e
                }
                _ = try store.storeReceived([
                    ReceivedBatch(receiver: "overland:phone", name: "phone", start: start, mode: nil, entries: batch)
                ])
            }
            let received = try store.resolveSession("phone")
            #expect(try expectKept(store, received).entryCount > 100)
        }
    }

    @Test func aFailedWriteAndADeletionLeaveTheOthersRight() throws {
        try withTemporaryStore { store, _ in
            let (a, b) = try twoSessions(store, "A", "B", entries: 30)
            var bad = makeEntries(count: 40, start: start.adding(milliseconds: 100_000), seed: 3)
            bad[35].latitude = 95
            #expect(throws: StoreError.self) { try store.append(bad, to: a.id) }
            #expect(try expectKept(store, a).entryCount == 30)
            // Inside a transaction the caller goes on with (and commits): the rows it stored are counted.
            try store.write {
                #expect(throws: StoreError.self) { try store.appendInTransaction(bad, to: a.id) }
            }
            let after = try store.summary(of: a)
            #expect(after.entryCount == (try store.recountSummary(sessionKey: a.key)).entryCount)
            try expectKept(store, a)
            try store.deleteSession(id: a.id)
            #expect(try store.keptSummary(sessionKey: a.key) == nil)
            #expect(try expectKept(store, b).entryCount == 30)
        }
    }

    /// A write that does not go through the Store leaves the kept figures wrong; `checkSummaries` finds the session,
    /// names the figures, and repairs them. A missing row is counted at the next read and kept.
    @Test func checkRepairsWhatWritesFromOutsideLeftWrong() throws {
        try withTemporaryStore { store, _ in
            let (s, _) = try twoSessions(store, "Edited", "Untouched", entries: 20)
            try store.database.run(
                "UPDATE SessionSummaries SET EntryCount = 3, MaxSpeed = 99 WHERE Session = ?", [.integer(s.key)])
            let looked = try store.checkSummaries(repair: false)
            #expect(looked.sessions == 2 && looked.entries == 40)
            #expect(looked.repairs.map(\.session.id) == [s.id])
            #expect(
                looked.repairs.first?.fields == ["EntryCount", "MaxSpeed"] && looked.repairs.first?.repaired == false)
            let repaired = try store.checkSummaries()
            #expect(repaired.repairs.count == 1 && repaired.repairs.first?.repaired == true)
            #expect(try store.checkSummaries().repairs.isEmpty)
            try expectKept(store, s)

            try store.database.run("DELETE FROM SessionSummaries WHERE Session = ?", [.integer(s.key)])
            #expect(try store.summary(of: s).entryCount == 20)
            #expect(try store.keptSummary(sessionKey: s.key) != nil, "the count is kept for the next read")
            try store.database.run(
                "INSERT INTO SessionSummaries (Session, EntryCount, TrackPoints, Marks, HeadingChanges, Fixes, LengthNanometres) VALUES (9999, 1, 1, 0, 0, 1, 0)"
            )
            let orphan = try store.checkSummaries()
            #expect(orphan.orphanRows == 1 && orphan.repairs.isEmpty)
            #expect(try store.checkSummaries().orphanRows == 0)
            #expect(try store.integrityProblems().isEmpty)
        }
    }

    /// A database from before the kept figures (version 18): its sessions are counted when a newer gpslog first
    /// opens it, with progress reported.
    @Test func anUpgradeCountsTheSessionsMadeBefore() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/old.sqlite"
            try makeOldDatabase(
                at: path, count: 250, columns: "Latitude, Longitude, TimeStamp, Speed, Marked, EntryID",
                values: """
                    52 + (i % 17) * 1e-3, 5 + (i % 13) * 1e-3, 1000 + (i % 50) * 1000, i % 7, i % 11 = 0,
                    printf('00000000-0000-7000-8000-%012d', i)
                    """)
            var reports: [UpgradeProgress] = []
            let store = try Store(path: path) { reports.append($0) }
            defer { store.close() }
            let s = try store.resolveSession("Old ride")
            #expect(try expectKept(store, s).entryCount == 250)
            #expect(reports.contains { $0.step == "Compacting entries" && $0.done == 250 && $0.total == 250 })
            #expect(reports.contains { $0.step == "Counting sessions" && $0.done == 250 })
            #expect(reports.last?.step == "Compacting the file" && reports.last?.done == 1)
        }
    }
}
