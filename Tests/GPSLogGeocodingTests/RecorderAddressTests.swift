// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogBundledRecording
import GPSLogGeocoding
import GPSLogImportExport
import GPSLogModel
import GPSLogRecording
import GPSLogSampling
import GPSLogSources
import GPSLogTestSupport
import Logging
import Testing

@testable import GPSLogStore

/// Addresses that need no request (an offline provider's, cached answers) go into the rows' own commit: the
/// recorder's flush stores each row with its address, and nothing writes the row's pages again to add it later.
@Suite(.ownThreads, .serialized)
struct RecorderAddressTests {
    /// Offline: every flush is one commit, and every row it stored has its address as soon as a reader sees the row.
    @Test func anOfflineProvidersAddressesAreInTheCommitThatStoresTheRows() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let regions = try RegionsGeocoder(geoJSON: DemoRegions.geoJSON, name: DemoRegions.name)
            let flushes = try await Self.record(
                db, geocoder: regions,
                check: { (reader: Store, before: Int) throws in
                    // One commit for the rows and their addresses together; none of the rows is without one.
                    #expect(Self.walCommits(db) == before + 1)
                    #expect(try unaddressed(reader) == 0)
                })
            #expect(flushes.count > 5)
            let reader = try Store(path: db)
            defer { reader.close() }
            let rows = try Self.count(reader, "SELECT COUNT(*) FROM Entries")
            #expect(rows == flushes.rows && rows > 100)
            // The sample sails on the IJsselmeer.
            let first = try #require(try reader.database.scalar("SELECT Address FROM Entries ORDER BY Key")?.string)
            #expect(first == "IJsselmeer (approximate outline), Netherlands (approximate outline)")
            // Every row counted; an offline lookup a cell (counted as a request), none read from the cache.
            let report = try #require(flushes.report)
            #expect(report.addressed == rows && report.cacheHits == 0 && report.failures == 0)
            #expect(report.cells == (try distinctCells(reader).count) && report.requests == report.cells)
        }
    }

    /// A network provider's cached answers go into the rows' commit too, and the recorder itself asks nothing.
    @Test func cachedAnswersAreInTheCommitThatStoresTheRowsAndNothingIsAsked() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim, minimumSpacing: 0)
        try await server.start()
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let geocoder = NominatimGeocoder(
                baseURL: server.url, userAgent: "gpslog-tests/1 (tests@example.org)", client: .shared)
            // An earlier session on the same track, geocoded: every cell of the track is in the cache.
            let store = try Store(path: db)
            _ = try NMEAImporter().importText(Sample.nmea, file: Sample.fileName, name: "Earlier", into: store)
            var options = GeocodeWorker.Options()
            options.rate = GeocodeRate(count: 1000, seconds: 1)
            _ = try await GeocodeWorker(store: store, geocoder: geocoder, options: options).run()
            store.close()
            let asked = server.log.count
            #expect(asked > 5)

            let flushes = try await Self.record(
                db, geocoder: geocoder,
                check: { (reader: Store, before: Int) throws in
                    #expect(Self.walCommits(db) == before + 1)
                    #expect(try unaddressed(reader) == 0)
                })
            #expect(server.log.count == asked, "the recorder asked the network")
            let report = try #require(flushes.report)
            #expect(report.addressed == flushes.rows && report.cacheHits == report.cells && report.requests == 0)
        }
        await server.stop()
    }

    /// Records the sample into `db`, flushing every 50 events; after each flush that stored rows, `check` gets a
    /// connection of its own and the WAL's commits before the flush. Returns the flushes, rows and address report.
    static func record(
        _ db: String, geocoder: any ReverseGeocoder, check: (Store, Int) throws -> Void
    ) async throws -> (count: Int, rows: Int64, report: GeocodeReport?) {
        let thread = StoreThread()
        let source = ReplaySource(input: .nmeaText(Sample.nmea, name: "sample"), speed: 0)
        let recorder = try SessionRecorder(
            databasePath: db, naming: .fixed("Now"), mode: nil, policy: SamplingPolicy(), source: source,
            thread: thread, logger: Logger(label: "test"), commitEvery: .seconds(3600), geocoder: geocoder)
        let reader = try Store(path: db)
        defer { reader.close() }
        var flushes = 0
        var events = 0
        func flush() async throws {
            let stored = await recorder.committedEntries
            let before = walCommits(db)
            try await recorder.flush()
            guard await recorder.committedEntries > stored else { return }
            flushes += 1
            try check(reader, before)
        }
        for try await batch in source.events() {
            for event in batch {
                try await recorder.handle(event)
                events += 1
                if events % 50 == 0 { try await flush() }
            }
        }
        try await flush()
        let report = await recorder.status().addresses
        _ = try await recorder.finish()
        let rows = Int64(await recorder.committedEntries)
        await thread.shutdown()
        return (flushes, rows, report)
    }

    /// The commits in the WAL since it last started over: frames with a database size are a transaction's last.
    static func walCommits(_ db: String) -> Int {
        guard let data = FileManager.default.contents(atPath: db + "-wal") else { return 0 }
        let wal = [UInt8](data)
        func u32(_ at: Int) -> UInt32 { wal[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        guard wal.count >= 32 else { return 0 }
        let frame = 24 + Int(u32(8))
        var commits = 0
        var offset = 32
        while offset + frame <= wal.count && wal[offset + 8..<offset + 16] == wal[16..<24] {
            if u32(offset + 4) != 0 { commits += 1 }
            offset += frame
        }
        return commits
    }

    static func count(_ store: Store, _ sql: String) throws -> Int64 { try store.database.scalar(sql)?.int64 ?? -1 }
}
