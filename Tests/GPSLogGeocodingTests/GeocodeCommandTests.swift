// SPDX-License-Identifier: MIT
import Foundation
import GPSLogBundledRecording
import GPSLogGeocoding
import GPSLogModel
import GPSLogRecording
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// `gpslog geocode` and `gpslog record --geocode`, run as a user runs them, against the loopback geocoder.
@Suite(.ownThreads, .serialized)
struct GeocodeCommandTests {
    /// Imports the sample into `db` and returns the session's id.
    func importSample(_ db: String) throws -> String {
        let imported = try runGPSLog(["import", "--sample", "--name", "Sail"], database: db)
        try #require(imported.status == 0, "\(imported.stderr)")
        let store = try Store(path: db)
        defer { store.close() }
        return try store.resolveSession("Sail").id
    }

    /// The cell a request was for: the worker asks at the point that opened the cell.
    func cell(_ r: FakeGeocoderServer.Request) -> String {
        Geohash.encode(latitude: r.latitude, longitude: r.longitude, precision: 7)
    }

    func cachedCells(_ db: String) throws -> Set<String> {
        let store = try Store(path: db)
        defer { store.close() }
        let s = try store.database.makeStatement("SELECT Cell FROM GeocodeCache")
        var cells = Set<String>()
        try s.withRows { cells.insert($0.string(at: 0)!) }
        return cells
    }

    @Test func geocodeFillsASessionFromEachProvider() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim)
        try await server.start()
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try importSample(db)
            let marked = try runGPSLog(
                [
                    "mark", "--session", "Sail", "--lat", "52.8492133", "--lon", "5.311535", "--time",
                    "2018-08-20T09:48:30Z", "Buoy",
                ], database: db)
            try #require(marked.status == 0, "\(marked.stderr)")

            let r = try runGPSLog(
                ["geocode", "Sail", "--provider", "nominatim:" + server.url, "--rate", "1/s", "--json"], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            let report = try JSONDecoder().decode(GeocodeReport.self, from: Data(r.stdout.utf8))
            #expect(server.tooSoon == 0)
            #expect(report.requests == report.cells && report.cacheHits == 0 && report.failures == 0)
            #expect(server.log.count == report.cells)
            #expect(server.log.allSatisfy { $0.userAgent?.hasPrefix("gpslog/") == true })
            let store = try Store(path: db)
            defer { store.close() }
            #expect(try unaddressed(store) == 0)
            // `show` lists the mark with its address, asked at the mark's exact point.
            let shown = try runGPSLog(["show", "Sail"], database: db)
            #expect(
                shown.stdout.contains("Buoy") && shown.stdout.contains("Lelystad, Flevoland, Nederland"),
                "\(shown.stdout)")

            // The same session with the regions shipped as an example and a GeoNames file: a separate cache per
            // provider (the default, places:world, is in PlacesCommandTests).
            try store.database.run("UPDATE Entries SET Address = NULL")
            let regions = try runGPSLog(["geocode", "--all", "--provider", "regions:demo"], database: db)
            #expect(regions.status == 0, "\(regions.stderr)")
            #expect(
                regions.stdout.hasPrefix(
                    "Geocoded with regions:regions-demo.geojson: \(report.addressed) entries addressed; \(report.cells) cells, \(report.cells) requests, 0 cache hits"
                ), "\(regions.stdout)")
            #expect(
                try store.database.scalar("SELECT COUNT(*) FROM Entries WHERE Address LIKE '%IJsselmeer%'")?.int64
                    == Int64(report.addressed))

            try store.database.run("UPDATE Entries SET Address = NULL")
            let cities = dir + "/cities1000.txt"
            try geoNamesRows.joined(separator: "\n").write(toFile: cities, atomically: true, encoding: .utf8)
            let geonames = try runGPSLog(["geocode", "Sail", "--provider", "geonames:" + cities], database: db)
            #expect(geonames.status == 0, "\(geonames.stderr)")
            #expect(
                try store.database.scalar("SELECT COUNT(*) FROM Entries WHERE Address LIKE '% km from Lelystad, NL'")?
                    .int64 == Int64(report.addressed))
            // The network provider's cache answers a second pass with no request at all.
            try store.database.run("UPDATE Entries SET Address = NULL")
            let again = try runGPSLog(
                ["geocode", "Sail", "--provider", "nominatim:" + server.url, "--json"], database: db)
            let second = try JSONDecoder().decode(GeocodeReport.self, from: Data(again.stdout.utf8))
            #expect(second.requests == 0 && second.cacheHits == report.cells && server.log.count == report.cells)
        }
        await server.stop()
    }

    @Test func aKilledWorkerLosesNothingAndNeverAsksACachedCellAgain() async throws {
        let server = FakeGeocoderServer(flavor: .photon)
        try await server.start()
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try importSample(db)
            let args = ["geocode", "--all", "--provider", "photon:" + server.url, "--rate", "1/s"]
            let first = try BackgroundGPSLog(args, database: db, folder: dir)
            #expect(waitUntil(timeout: 30) { server.log.count >= 3 })
            kill(first.process.processIdentifier, SIGKILL)
            #expect(first.wait(timeout: 10) != nil)
            let cached = try cachedCells(db)
            let askedBeforeKill = server.log.count
            #expect(cached.count >= 2 && cached.count <= askedBeforeKill)
            // What the cache holds is already written to the entries: the answer and the addresses land together.
            let store = try Store(path: db)
            defer { store.close() }
            let addressedBeforeRestart =
                try store.database.scalar("SELECT COUNT(*) FROM Entries WHERE Address IS NOT NULL")?.int64 ?? 0
            #expect(addressedBeforeRestart > 0)

            let restart = try runGPSLog(args + ["--json"], database: db)
            #expect(restart.status == 0, "\(restart.stderr)")
            let report = try JSONDecoder().decode(GeocodeReport.self, from: Data(restart.stdout.utf8))
            let askedAfter = server.log.dropFirst(askedBeforeKill).map(cell)
            #expect(askedAfter.allSatisfy { !cached.contains($0) }, "a cached cell was asked again")
            #expect(Set(askedAfter).count == askedAfter.count)
            #expect(try unaddressed(store) == 0)
            #expect(server.tooSoon == 0, "the restart burst past the rate limit")
            // At most the one request in flight at the kill was repeated.
            let all = try distinctCells(store)
            #expect(server.log.count <= all.count + 1)
            #expect(report.requests == askedAfter.count)
        }
        await server.stop()
    }

    @Test func blockedAndPausedProvidersSayWhatToDo() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim, minimumSpacing: 0)
        server.blockEverything = true
        try await server.start()
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try importSample(db)
            let args = ["geocode", "--all", "--provider", "nominatim:" + server.url]
            let blocked = try runGPSLog(args, database: db)
            #expect(blocked.status != 0)
            #expect(blocked.stderr.contains("is blocked") && blocked.stderr.contains("--reset"), "\(blocked.stderr)")
            // Still blocked: nothing is sent until the user resets it.
            let again = try runGPSLog(args, database: db)
            #expect(again.status != 0 && server.log.count == 1)
            server.blockEverything = false
            server.stormRemaining = 1
            let paused = try runGPSLog(args + ["--reset"], database: db)
            #expect(paused.status == 0 && paused.stderr.contains("paused until"), "\(paused.stderr)")
            #expect(server.log.count == 2)

            let publicServer = try runGPSLog(
                ["geocode", "--all", "--provider", "nominatim:https://nominatim.openstreetmap.org"], database: db)
            #expect(publicServer.status != 0 && publicServer.stderr.contains("--contact"), "\(publicServer.stderr)")
            let badRate = try runGPSLog(["geocode", "--all", "--rate", "fast"], database: db)
            #expect(badRate.status != 0 && badRate.stderr.contains("--rate"))
        }
        await server.stop()
    }

    @Test func addressesAppearWhileRecording() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim)
        try await server.start()
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--name", "Sail", "--source", "replay:sample?speed=4", "--geocode",
                    "nominatim:" + server.url, "--geocode-rate", "1/s",
                    // Commits every second, so that address rounds come every 4 s (20 s and 80 s by default).
                    "--commit-every", "1s",
                ],
                database: db, folder: dir)
            func status() throws -> RecorderStatus? {
                let r = try runGPSLog(["status", "--json"], database: db)
                return r.status == 0 ? try JSONDecoder().decode(RecorderStatus.self, from: Data(r.stdout.utf8)) : nil
            }
            #expect(try waitUntil(timeout: 30) { (try status()?.addresses?.addressed ?? 0) > 0 })
            let during = try #require(try status())
            // Still recording, and the addresses are in the database for any reader.
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession("Sail")
            #expect(session.end == nil)
            let withAddress =
                try store.database.scalar(
                    "SELECT COUNT(*) FROM Entries WHERE Session = ? AND Address IS NOT NULL", [.text(session.id)])?
                .int64 ?? 0
            #expect(withAddress > 0)
            let text = try runGPSLog(["status"], database: db)
            #expect(text.stdout.contains("Addresses:") && text.stdout.contains("by nominatim:"), "\(text.stdout)")
            #expect(during.addresses?.cells ?? 0 >= during.addresses?.requests ?? 1)

            #expect(try runGPSLog(["stop"], database: db).status == 0)
            #expect(recorder.wait(timeout: 15) == 0)
            // Whatever the recording left, a backfill finishes, asking only cells nobody asked yet.
            let rest = try runGPSLog(
                ["geocode", "Sail", "--provider", "nominatim:" + server.url, "--json"], database: db)
            #expect(rest.status == 0, "\(rest.stderr)")
            #expect(try unaddressed(store) == 0)
            #expect(server.tooSoon == 0)
            #expect(Set(server.log.map(cell)).count == server.log.count, "a cell was asked twice")
        }
        await server.stop()
    }
}

/// Three places in GeoNames' cities1000.txt layout (19 tab-separated columns).
let geoNamesRows = [
    [
        "2751792", "Lelystad", "Lelystad", "", "52.50833", "5.475", "P", "PPLA", "NL", "", "16", "0995", "", "",
        "76148", "", "0", "Europe/Amsterdam", "2019-11-27",
    ],
    [
        "2759879", "Almere Stad", "Almere Stad", "", "52.37025", "5.21413", "P", "PPL", "NL", "", "16", "0034", "", "",
        "176432", "", "0", "Europe/Amsterdam", "2017-01-11",
    ],
    [
        "2747891", "Rotterdam", "Rotterdam", "", "51.9225", "4.47917", "P", "PPLA2", "NL", "", "11", "0599", "", "",
        "598199", "", "0", "Europe/Amsterdam", "2019-11-27",
    ],
].map { $0.joined(separator: "\t") }
