// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogBundledRecording
import GPSLogGeocoding
import GPSLogImportExport
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The sample session (a real recording) with one mark, in a fresh store.
func sampleStore(_ body: (Store, Session) async throws -> Void) async throws {
    try await withTemporaryDirectory { dir in
        let store = try Store(path: dir + "/gpslog.sqlite")
        defer { store.close() }
        let session = try NMEAImporter().importText(
            Sample.nmea, file: Sample.fileName, name: "Sail", sessionID: Sample.sessionID, into: store
        ).session
        var mark = Entry(
            id: "016556bc-6d60-7000-8000-00000000b007", latitude: 52.8492133, longitude: 5.311535,
            time: Timestamp(iso8601: "2018-08-20T09:48:30Z")!)
        mark.marked = true
        try store.append([mark], to: session.id)
        try await body(store, session)
    }
}

func distinctCells(_ store: Store, precision: Int = 7) throws -> Set<String> {
    var cells = Set<String>()
    try store.database.makeStatement("SELECT Latitude, Longitude, Marked FROM Entries").withRows { s in
        let lat = s.double(at: 0)!
        let lon = s.double(at: 1)!
        cells.insert(
            s.int64(at: 2) == 1 ? "@\(lat),\(lon)" : Geohash.encode(latitude: lat, longitude: lon, precision: precision)
        )
    }
    return cells
}

func unaddressed(_ store: Store) throws -> Int64 {
    try store.database.scalar("SELECT COUNT(*) FROM Entries WHERE Address IS NULL")?.int64 ?? -1
}

extension GPSLogSQLite.Statement {
    func withRows(_ body: (GPSLogSQLite.Statement) throws -> Void) throws {
        while try step() { try body(self) }
    }
}

@Suite(.ownThreads)
struct GeohashTests {
    @Test func encodesTheReferenceExample() {
        #expect(Geohash.encode(latitude: 57.64911, longitude: 10.40744, precision: 11) == "u4pruydqqvj")
        #expect(Geohash.encode(latitude: 52.850155, longitude: 5.3136167, precision: 7).count == 7)
    }
}

@Suite(.ownThreads, .serialized)
struct NetworkGeocodingTests {
    @Test(arguments: [FakeGeocoderServer.Flavor.nominatim, .photon])
    func aRealSessionAtOneRequestPerSecondGetsEveryAddressWithOneRequestPerCell(flavor: FakeGeocoderServer.Flavor)
        async throws
    {
        let server = FakeGeocoderServer(flavor: flavor)
        try await server.start()
        try await sampleStore { store, session in
            let geocoder: any ReverseGeocoder =
                flavor == .nominatim
                ? NominatimGeocoder(
                    baseURL: server.url, userAgent: "gpslog-tests/1 (tests@example.org)", client: .shared)
                : PhotonGeocoder(baseURL: server.url, userAgent: "gpslog-tests/1 (tests@example.org)", client: .shared)
            var options = GeocodeWorker.Options()
            options.rate = GeocodeRate("1/s")!
            let worker = GeocodeWorker(store: store, geocoder: geocoder, options: options)
            let report = try await worker.run()
            let cells = try distinctCells(store)
            #expect(server.tooSoon == 0, "the server saw requests less than a second apart")
            #expect(try unaddressed(store) == 0)
            #expect(report.requests == cells.count && server.log.count == cells.count)
            #expect(report.requestsPerUncachedCell == 1)
            // The mark was asked at its exact point.
            #expect(server.log.contains { $0.latitude == 52.8492133 && $0.longitude == 5.311535 })
            let mark = try store.marks(of: session.id).next()
            #expect(
                mark?.address?.contains(
                    flavor == .nominatim
                        ? "Lelystad, Flevoland, Nederland" : "Testweg 7, 8221 AB Lelystad, Flevoland, Nederland")
                    == true)
            // A second run asks nothing: everything is addressed.
            let again = try await worker.run()
            #expect(again.requests == 0 && server.log.count == cells.count)
        }
        await server.stop()
    }

    /// The server measures arrivals: a request that reaches it late (a loaded machine, a slow link) must not bring
    /// the next one, sent on time, less than a second after it. The next request waits a full period from the
    /// answer (it was 1.1 s from the send, and half of these requests came too soon).
    @Test func requestsThatArriveLateDoNotBringTheNextTooSoon() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim)
        server.lateArrivalMilliseconds = 700
        try await server.start()
        try await sampleStore { store, _ in
            let geocoder = NominatimGeocoder(
                baseURL: server.url, userAgent: "gpslog-tests/1 (tests@example.org)", client: .shared)
            var options = GeocodeWorker.Options()
            options.rate = GeocodeRate("1/s")!
            options.precision = 6  // a few cells: a handful of requests
            let report = try await GeocodeWorker(store: store, geocoder: geocoder, options: options).run()
            #expect(report.requests >= 3 && server.log.count == report.requests, "\(report)")
            #expect(server.tooSoon == 0, "the server saw requests less than a second apart")
            #expect(report.failures == 0 && report.pausedUntil == nil)
        }
        await server.stop()
    }

    @Test func noAddressAnswersAreCachedAndNotAskedAgain() async throws {
        let server = FakeGeocoderServer(flavor: .photon, minimumSpacing: 0)
        server.seaBelowLatitude = 90  // everything is sea
        try await server.start()
        try await sampleStore { store, _ in
            var options = GeocodeWorker.Options()
            options.rate = GeocodeRate("100/s")!
            let worker = GeocodeWorker(
                store: store, geocoder: PhotonGeocoder(baseURL: server.url, userAgent: "t", client: .shared),
                options: options)
            let first = try await worker.run()
            #expect(first.negatives == first.cells && first.requests == first.cells)
            let second = try await worker.run()
            #expect(second.requests == 0 && second.cacheHits == second.cells && second.negatives == second.cells)
            #expect(server.log.count == first.cells)
        }
        await server.stop()
    }

    @Test func a429StormPausesTheProviderWithDoublingBackoff() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim, minimumSpacing: 0)
        server.stormRemaining = 3
        try await server.start()
        try await sampleStore { store, _ in
            var options = GeocodeWorker.Options()
            options.rate = GeocodeRate("100/s")!
            let worker = GeocodeWorker(
                store: store, geocoder: NominatimGeocoder(baseURL: server.url, userAgent: "t", client: .shared),
                options: options)
            // Real time plus a jump we control, so an hour's pause passes in no time while spacing still works.
            var jump: Int64 = 0
            var clock: Int64 { Int64(Date().timeIntervalSince1970 * 1000) + jump }
            worker.now = { clock }
            var pauses: [Int64] = []
            for _ in 0..<3 {
                let report = try await worker.run()
                let until = try #require(report.pausedUntil.flatMap { Timestamp(iso8601: $0) })
                pauses.append(until.milliseconds - clock)
                // Still paused: nothing is asked.
                let before = server.log.count
                #expect(try await worker.run().pausedUntil != nil)
                #expect(server.log.count == before)
                jump += until.milliseconds + 1 - clock
            }
            #expect(server.log.count == 3)
            // At least 60 s, doubling, with at most 10 % jitter.
            #expect(pauses[0] >= 60_000 && pauses[0] <= 66_000)
            #expect(pauses[1] >= 120_000 && pauses[1] <= 132_000)
            #expect(pauses[2] >= 240_000 && pauses[2] <= 264_000)
            let done = try await worker.run()
            #expect(done.pausedUntil == nil && done.requests == done.cells)
            #expect(try unaddressed(store) == 0)
        }
        await server.stop()
    }

    @Test func a403BlocksTheProviderUntilReset() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim, minimumSpacing: 0)
        server.blockEverything = true
        try await server.start()
        try await sampleStore { store, _ in
            var options = GeocodeWorker.Options()
            options.rate = GeocodeRate("100/s")!
            let worker = GeocodeWorker(
                store: store, geocoder: NominatimGeocoder(baseURL: server.url, userAgent: "t", client: .shared),
                options: options)
            let report = try await worker.run()
            #expect(report.blocked?.contains("blocked, or the User-Agent was not accepted") == true)
            #expect(try await worker.run().blocked != nil)
            #expect(server.log.count == 1)
            server.blockEverything = false
            try worker.reset()
            let after = try await worker.run()
            #expect(after.blocked == nil && after.requests == after.cells)
        }
        await server.stop()
    }

    @Test func theServerRefusesRequestsWithoutAUserAgent() async throws {
        let server = FakeGeocoderServer(flavor: .nominatim)
        try await server.start()
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: server.url + "/reverse?format=jsonv2&lat=52&lon=5"), timeout: .seconds(5))
        #expect(response.status.code == 403)
        await server.stop()
    }
}

@Suite(.ownThreads)
struct OfflineGeocodingTests {
    @Test func theBundledRegionsNameTheSample() async throws {
        let regions = try RegionsGeocoder(geoJSON: DemoRegions.geoJSON, name: DemoRegions.name)
        #expect(
            try await regions.lookup(latitude: 52.85, longitude: 5.31, language: "en")
                == .address("IJsselmeer (approximate outline), Netherlands (approximate outline)"))
        #expect(
            try await regions.lookup(latitude: 52.37, longitude: 4.9, language: "en")
                == .address("Netherlands (approximate outline)"))
        #expect(try await regions.lookup(latitude: 48.85, longitude: 2.35, language: "en") == GeocodeAnswer.none)
    }

    @Test func geoNamesGivesTheNearestPlace() async throws {
        try await withTemporaryDirectory { dir in
            // The cities1000.txt layout: 19 tab-separated columns.
            let rows = [
                "2751792\tLelystad\tLelystad\t\t52.50833\t5.475\tP\tPPLA\tNL\t\t16\t0995\t\t\t76145\t\t-4\tEurope/Amsterdam\t2023-01-01",
                "2756136\tEnkhuizen\tEnkhuizen\t\t52.70333\t5.29167\tP\tPPL\tNL\t\t07\t0388\t\t\t18476\t\t0\tEurope/Amsterdam\t2023-01-01",
                "2759794\tAmsterdam\tAmsterdam\t\t52.37403\t4.88969\tP\tPPLC\tNL\t\t07\t0363\t\t\t741636\t\t13\tEurope/Amsterdam\t2023-01-01",
                "2747351\tStavoren\tStavoren\t\t52.885\t5.36389\tP\tPPL\tNL\t\t02\t1900\t\t\t950\t\t0\tEurope/Amsterdam\t2023-01-01",
            ]
            let path = dir + "/cities1000.txt"
            try rows.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let geonames = try GeoNamesGeocoder(path: path)
            #expect(
                try await geonames.lookup(latitude: 52.85, longitude: 5.31, language: "en")
                    == .address("5 km from Stavoren, NL"))
            #expect(
                try await geonames.lookup(latitude: 52.374, longitude: 4.8897, language: "en")
                    == .address("Amsterdam, NL"))
            #expect(try await geonames.lookup(latitude: 10, longitude: 10, language: "en") == GeocodeAnswer.none)
            try "not\ta\tgeonames\tfile".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: GeocodeFailure.self) { _ = try GeoNamesGeocoder(path: path) }
        }
    }
}

/// Provider settings that follow from policy and precision, checked without the network.
@Suite(.ownThreads)
struct GeocoderPolicyTests {
    @Test func thePublicNominatimRefusesRatesAboveItsPolicyAndAsksAtTheCellsZoom() throws {
        let spec = GeocoderSpec("nominatim:https://nominatim.openstreetmap.org")
        let made = try spec.make(contact: "me@example.org", precision: 5, client: .shared)
        #expect(made.defaultRate.spacingMilliseconds == GeocodeRate(count: 4, seconds: 60).spacingMilliseconds)
        #expect(throws: GeocodeFailure.self) { try made.rate(requested: GeocodeRate("10/s")) }
        #expect(throws: GeocodeFailure.self) { try made.rate(requested: GeocodeRate("2/s")) }
        #expect(
            try made.rate(requested: GeocodeRate("1/s")).spacingMilliseconds
                == GeocodeRate(count: 1, seconds: 1).spacingMilliseconds)
        #expect(
            try made.rate(requested: GeocodeRate("1/min")).spacingMilliseconds
                == GeocodeRate(count: 1, seconds: 60).spacingMilliseconds)
        // A town-sized cell is asked for a town, not for the street where it was opened.
        #expect((made.geocoder as? NominatimGeocoder)?.zoom == 10)
        let own = try GeocoderSpec("nominatim:http://127.0.0.1:1").make(contact: nil, precision: 6, client: .shared)
        #expect((own.geocoder as? NominatimGeocoder)?.zoom == 14)
        #expect(
            try own.rate(requested: GeocodeRate("10/s")).spacingMilliseconds
                == GeocodeRate(count: 10, seconds: 1).spacingMilliseconds)
        let street = try GeocoderSpec("nominatim:http://127.0.0.1:1").make(contact: nil, client: .shared)
        #expect((street.geocoder as? NominatimGeocoder)?.zoom == 18)
    }
}
