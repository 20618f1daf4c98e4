// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The two-thread paths that imports, exports and converts take: same rows as the one-thread path, failures on
/// the second thread surface on the first, and nothing is half-written.
@Suite(.ownThreads)
struct PipelineTests {
    @Test func aStoreFailureOnTheWriterThreadRollsBackTheWholeImport() throws {
        try withTemporaryStore { store, _ in
            let target = PipelinedSink(store, depth: 2)
            var bad = makeEntries(count: 10, seed: 3)
            bad[7].latitude = 95  // breaks latitude_in_range, found by SQLite on the writer thread
            #expect {
                try target.importTransaction(expectedBytes: nil) {
                    let session = try target.createSession(
                        name: "half", start: Timestamp(milliseconds: 0), mode: nil, id: nil)
                    for i in 0..<20 {
                        try target.appendEntries(
                            makeEntries(
                                count: 500, start: Timestamp(milliseconds: Int64(i) * 1_000_000), seed: UInt64(i + 10)),
                            to: session.id)
                    }
                    try target.appendEntries(bad, to: session.id)
                    for i in 0..<20 {
                        try target.appendEntries(
                            makeEntries(
                                count: 500, start: Timestamp(milliseconds: 99_000_000_000 + Int64(i) * 1_000_000),
                                seed: UInt64(i + 50)), to: session.id)
                    }
                    try target.finishSession(id: session.id, end: Timestamp(milliseconds: 1))
                }
            } throws: { error in
                guard case StoreError.invalidEntry(let index, _, let reason) = error else { return false }
                return index == 7 && reason.contains("latitude_in_range")
            }
            // Nothing of it is left: no session, no entry.
            #expect(try store.sessions().isEmpty)
            #expect(try store.database.scalar("SELECT COUNT(*) FROM Entries")?.int64 == 0)
            // And the store is usable again (the writer thread let go of it).
            let s = try store.createSession(name: "after", start: Timestamp(milliseconds: 0))
            try store.append(makeEntries(count: 3), to: s.id)
        }
    }

    @Test func aPipelinedImportStoresExactlyWhatADirectOneStores() throws {
        let entries = makeEntries(count: 10_000, seed: 21)
        func load(_ pipelined: Bool) throws -> [Entry] {
            try withTemporaryStore { store, _ in
                let target: any SessionSink = pipelined ? PipelinedSink(store) : store
                let id = try target.importTransaction(expectedBytes: nil) { () throws -> String in
                    let s = try target.createSession(
                        name: "same", start: entries[0].time, mode: nil, id: "0190f1a2-0000-7000-8000-000000000001")
                    for chunk in stride(from: 0, to: entries.count, by: 777) {
                        try target.appendEntries(Array(entries[chunk..<min(chunk + 777, entries.count)]), to: s.id)
                    }
                    try target.finishSession(id: s.id, end: entries.last!.time)
                    return s.id
                }
                var rows: [Entry] = []
                try store.entries(of: id).forEach { rows.append($0) }
                return rows
            }
        }
        let direct = try load(false)
        #expect(direct.count == entries.count)
        #expect(try load(true) == direct)
    }

    @Test func prefetchingGivesTheSameRowsAndLetsGoOfTheStoreWhenTheCallerStops() throws {
        try withTemporaryStore { store, _ in
            let s = try store.createSession(name: "read", start: Timestamp(milliseconds: 1_700_000_000_000))
            try store.append(makeEntries(count: 5_000, seed: 5), to: s.id)
            var direct: [Entry] = []
            try store.forEachEntry(of: s.id, from: nil, to: nil) { direct.append($0) }
            let prefetching = PrefetchingSource(store, batchSize: 64, depth: 2)
            var fetched: [Entry] = []
            try prefetching.forEachEntry(of: s.id, from: nil, to: nil) { fetched.append($0) }
            #expect(fetched == direct)

            struct Stop: Error {}
            var seen = 0
            #expect(throws: Stop.self) {
                try prefetching.forEachEntry(of: s.id, from: nil, to: nil) { _ in
                    seen += 1
                    if seen == 100 { throw Stop() }
                }
            }
            #expect(seen == 100)
            // The reading thread has finished with the connection: this thread can use it at once.
            try store.append(
                makeEntries(count: 2, start: Timestamp(milliseconds: 1_800_000_000_000), seed: 6), to: s.id)
            #expect(try store.entryCount(of: s.id) == 5_002)
        }
    }

    /// A track long enough that its GeoJSON times spill out of memory still comes out whole and in order.
    @Test func aLongTrackExportsToGeoJSONInOnePass() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let entries = makeEntries(count: 60_000, seed: 4)
                let session = try store.createSession(name: "Long", start: entries[0].time)
                try store.append(entries, to: session.id)
                var export = SessionExport(store: PrefetchingSource(store), session: session)
                var reads = 0
                export.onEntry = { reads += 1 }
                try Exporter(format: .geojson).export([export], to: dir + "/long.geojson")
                #expect(reads == entries.count)
                let root =
                    try JSONSerialization.jsonObject(
                        with: Data(contentsOf: URL(fileURLWithPath: dir + "/long.geojson"))) as! [String: Any]
                let track = (root["features"] as! [[String: Any]])[0]
                let coordinates = (track["geometry"] as! [String: Any])["coordinates"] as! [[Double]]
                let times = (track["properties"] as! [String: Any])["coordTimes"] as! [String]
                #expect(coordinates.count == entries.count && times.count == entries.count)
                #expect(times.first == entries.first!.time.iso8601() && times.last == entries.last!.time.iso8601())
                #expect(abs(coordinates.last![1] - entries.last!.latitude) < 1e-7)
            }
        }
    }
}
