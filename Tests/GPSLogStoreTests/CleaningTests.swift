// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Deleting entries, pruning, splitting and merging on real SQLite files: every change in one transaction, the kept
/// figures equal to a recount afterwards, segments, days and records following their entries, and space given back.
@Suite(.ownThreads)
struct CleaningTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    func expectKept(_ store: Store, _ session: Session, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let kept = try store.keptSummary(sessionKey: session.key)
        #expect(kept == (try store.recountSummary(sessionKey: session.key)), sourceLocation: sourceLocation)
    }

    /// 600 one-second track points with a mark every 100, a segment starting at 200, a visit at 250 s and a pause at
    /// 450 s.
    func session(_ store: Store, name: String = "Walk") throws -> Session {
        let session = try store.createSession(name: name, start: start)
        var entries = makeEntries(count: 600, start: start)
        for i in stride(from: 50, to: 600, by: 100) { entries[i].marked = true }
        entries[200].startsSegment = true
        try store.append(entries, to: session.id)
        try store.addVisit(
            Visit(
                latitude: entries[250].latitude, longitude: 5, horizontalAccuracy: 10,
                arrival: start.adding(milliseconds: 250_000), departure: start.adding(milliseconds: 300_000)),
            to: session.id)
        try store.addTrackingEvent(
            TrackingEvent(action: .paused, time: start.adding(milliseconds: 450_000), latitude: 52, longitude: 5),
            to: session.id)
        try store.finishSession(id: session.id, end: start.adding(milliseconds: 599_000))
        return try store.session(id: session.id)!
    }

    func at(_ seconds: Int64) -> Timestamp { start.adding(milliseconds: seconds * 1000) }

    @Test func aTimeRangeGoesWithItsRecordsAndItsSegmentStartIsHandedOn() throws {
        try withTemporaryStore { store, _ in
            let walk = try session(store)
            let dry = try store.deleteEntries(of: walk, EntrySelection(from: at(150), to: at(259)), dryRun: true)
            #expect(dry.trackPoints == 108 && dry.marks == 2 && dry.events == 1)
            #expect(try store.entryCount(of: walk.id) == 600)
            let done = try store.deleteEntries(of: walk, EntrySelection(from: at(150), to: at(259)))
            #expect(done == dry)
            #expect(try store.entryCount(of: walk.id) == 490)
            #expect(try store.visits(of: walk.id).isEmpty && store.trackingEvents(of: walk.id).count == 1)
            // Point 200 started a segment; the next point left, 260, does now.
            let starts = try store.entries(of: walk.id).all().filter(\.startsSegment).map(\.time)
            #expect(starts == [at(260)])
            try expectKept(store, walk)
        }
    }

    @Test func anAreaAndARegionTest() throws {
        try withTemporaryStore { store, _ in
            let walk = try session(store)
            // Points 0...99 are within 1,000 m of the start (10 m a step).
            let box = GeoBox(south: 51.9, west: 4.9, north: 52 + 995 / 111_195, east: 5.1)
            let inBox = try store.deleteEntries(of: walk, EntrySelection(box: box), dryRun: true)
            #expect(inBox.entries == 100)
            // And a test that keeps only the odd ones of those.
            let odd = try store.deleteEntries(
                of: walk,
                EntrySelection(box: box, inside: { lat, _ in Int(((lat - 52) * 111_195 / 10).rounded()) % 2 == 1 }))
            #expect(try odd.entries == 50 && store.entryCount(of: walk.id) == 550)
            try expectKept(store, walk)
        }
    }

    @Test func outliersAndTheirReasons() throws {
        try withTemporaryStore { store, _ in
            let session = try store.createSession(name: "Spiky", start: start)
            var entries = makeEntries(count: 300, start: start)
            entries[100].latitude += 0.05
            entries[200].latitude = 0
            entries[200].longitude = 0
            entries[250].horizontalAccuracy = 500
            try store.append(entries, to: session.id)
            let rules = OutlierRules(maxAccuracy: 100)
            let report = try store.deleteEntries(of: session, EntrySelection(outliers: rules))
            #expect(report.reasons == [.jump: 1, .nullIsland: 1, .accuracy: 1] && report.events == 0)
            let left = Set(try store.entries(of: session.id).all().map(\.id))
            #expect(left == Set(entries.map(\.id)).subtracting([entries[100].id, entries[200].id, entries[250].id]))
            try expectKept(store, session)
            #expect(try store.deleteEntries(of: session, EntrySelection(outliers: rules)).entries == 0)
        }
    }

    @Test func splitAndMergeBackGiveTheSameEntries() throws {
        try withTemporaryStore { store, _ in
            let walk = try session(store)
            try store.saveUploadProgress(
                UploadProgress(
                    last: (at(400).milliseconds, 401), sent: 400, batches: 2, distance: 4000, sentAt: at(600)),
                session: walk.id, destination: "overland https://example.org")
            let before = try store.entries(of: walk.id).all()
            let second = try store.split(walk, at: at(300), name: "Afternoon")
            let first = try store.session(id: walk.id)!
            #expect(first.end == at(299) && second.start == at(300) && second.end == at(599))
            #expect(try store.entryCount(of: walk.id) == 300 && store.entryCount(of: second.id) == 300)
            #expect(try store.visits(of: walk.id).count == 1 && store.trackingEvents(of: second.id).count == 1)
            // What the destination confirmed of the whole stays confirmed for the second part.
            #expect(
                try store.uploadProgress(session: second.id, destination: "overland https://example.org").last?.key
                    == 401)
            try expectKept(store, first)
            try expectKept(store, second)
            #expect(throws: StoreError.self) { try store.split(first, at: at(400)) }

            let merged = try store.merge(second, into: first)
            #expect(merged.start == start && merged.end == at(599))
            #expect(try store.session(id: second.id) == nil)
            let after = try store.entries(of: walk.id).all()
            #expect(after.map(\.id) == before.map(\.id))
            // The merged part starts a segment.
            #expect(after.filter(\.startsSegment).map(\.time) == [at(200), at(300)])
            #expect(try store.trackingEvents(of: walk.id).count == 1)
            try expectKept(store, merged)
            #expect(throws: StoreError.self) { try store.merge(merged, into: merged) }
        }
    }

    @Test func pruneDeletesOldSessionsTrimsTheOneAcrossTheCutAndSparesTheRecordedOne() throws {
        try withTemporaryStore { store, _ in
            let old = try session(store, name: "Old")
            try store.renameSession(id: old.id, to: "Old")
            let later = try store.createSession(name: "Across", start: at(1000))
            try store.append(makeEntries(count: 100, start: at(1000)), to: later.id)
            let recording = try store.createSession(name: "Recording", start: at(900))
            try store.append(makeEntries(count: 10, start: at(900), seed: 3), to: recording.id)
            let dry = try store.prune(before: at(1050), sparing: [recording.key], dryRun: true)
            #expect(dry.deleted.map(\.session.id) == [old.id] && dry.deleted.map(\.entries) == [600])
            #expect(dry.trimmed.map(\.session.id) == [later.id] && dry.trimmed.map(\.entries) == [50])
            #expect(dry.spared.map(\.id) == [recording.id])
            let done = try store.prune(before: at(1050), sparing: [recording.key])
            #expect(done == dry)
            #expect(try store.session(id: old.id) == nil)
            #expect(try store.session(id: later.id)?.start == at(1050) && store.entryCount(of: later.id) == 50)
            #expect(try store.entryCount(of: recording.id) == 10)
            try expectKept(store, try store.session(id: later.id)!)
        }
    }

    @Test func aNewFileGivesItsSpaceBack() throws {
        try withTemporaryStore { store, path in
            #expect(try store.database.scalar("PRAGMA auto_vacuum")?.int64 == 2)
            let s = try store.createSession(name: "Big", start: start)
            try store.append(makeEntries(count: 50_000, start: start), to: s.id)
            let size = { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
            _ = try store.database.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
            let full = size()
            _ = try store.deleteEntries(of: s, EntrySelection(from: start.adding(milliseconds: 5_000_000)))
            let space = try store.giveSpaceBack()
            #expect(space.incremental && space.returned > 0 && space.free == 0)
            #expect(size() < full / 5, "the file is \(size()) bytes, was \(full)")
        }
    }
}
