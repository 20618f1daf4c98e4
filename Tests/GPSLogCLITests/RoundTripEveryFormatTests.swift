// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogTestSupport
import GPSLogXML
import Testing

/// Export, import into a fresh database, export again: the same bytes, for every format gpslog writes, of one rich
/// session made through the CLI (a real sail with heading changes, a real hike recorded with a region, a tag and
/// visits, one of them named, merged into one session of several segments, marks and a POI, addresses from a
/// geocoder). What a format
/// cannot carry is said in `Carriage` (as the README's format table says it) and only that is let go.
@Suite(.ownThreads)
struct RoundTripEveryFormatTests {
    static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    /// The kinds of rows and records a session holds.
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case trackPoints, marks, headingChanges, transitions, visits
        var description: String { rawValue }
    }

    /// What a format carries through a round trip: the kinds it cannot carry at all (none come back; the README's
    /// table says so).
    struct Carriage: CustomStringConvertible {
        let format: String
        let fileExtension: String
        let lost: Set<Kind>
        var description: String { format }
    }

    static let formats: [Carriage] = [
        Carriage(format: "xml", fileExtension: "xml", lost: []),
        Carriage(format: "gpx", fileExtension: "gpx", lost: [.headingChanges, .visits]),
        Carriage(format: "geojson", fileExtension: "geojson", lost: [.headingChanges]),
        Carriage(format: "kml", fileExtension: "kml", lost: [.headingChanges, .visits]),
        Carriage(format: "csv", fileExtension: "csv", lost: [.transitions, .visits]),
        Carriage(format: "overland", fileExtension: "json", lost: [.marks, .headingChanges, .transitions, .visits]),
        Carriage(format: "owntracks", fileExtension: "jsonl", lost: [.headingChanges, .visits]),
        Carriage(format: "rec", fileExtension: "rec", lost: [.headingChanges, .visits]),
    ]

    /// Named places for the geocoder (regions:PATH): names that need escaping in every format.
    static let places = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"IJsselmeer, <NL> & \\"Friesland\\""},"geometry":{"type":"Polygon","coordinates":[[[5.2,52.8],[5.4,52.8],[5.4,52.9],[5.2,52.9],[5.2,52.8]]]}},
        {"type":"Feature","properties":{"name":"=Wetterstein 🏔"},"geometry":{"type":"Polygon","coordinates":[[[10.9,47.4],[11.1,47.4],[11.1,47.6],[10.9,47.6],[10.9,47.4]]]}}
        ]}
        """

    /// Makes the session 'Rich' in `db` through the CLI.
    static func makeRichSession(db: String, dir: String) throws {
        func run(_ arguments: [String]) throws {
            let r = try runGPSLog(arguments, database: db)
            try #require(r.status == 0, "\(arguments.joined(separator: " ")): \(r.stderr)")
        }
        // The bundled sail: track points and heading changes (a real NMEA log).
        try run(["import", "--sample", "--name", "Rich"])
        // A real hike recorded with a region to enter and leave, a tag, pauses (segments) and visits.
        try run([
            "region", "add", #"Alm <hut> & "Kaser""#, "--lat", "47.4958102", "--lon", "10.9873623", "--radius", "150",
        ])
        try run([
            "record", "--source", "replay:\(hike)?speed=0", "--geocode", "off", "--name", "Hike",
            "--pause-when-stopped", "10m", "--visits", "--tag", "Hike, day 1",
        ])
        try run([
            "mark", "--session", "Hike", "--lat", "47.495", "--lon", "10.987", "--time", "2019-05-01T07:30:00Z",
            #"Gipfel <1> & "Top" 🏔"#,
        ])
        try run([
            "mark", "--session", "Hike", "--poi", "--lat", "47.506", "--lon", "11.01", "--time", "2019-05-01T09:00:00Z",
            "=Hütte, +1",
        ])
        try run([
            "mark", "--session", "Rich", "--lat", "52.849", "--lon", "5.311", "--time", "2018-08-20T09:48:30Z", "Buoy",
        ])
        try run(["merge", "Rich", "Hike"])
        try places.write(toFile: dir + "/places.geojson", atomically: true, encoding: .utf8)
        try run(["geocode", "Rich", "--provider", "regions:" + dir + "/places.geojson"])
        // One visit named, as `visit rename` names it (which names every piece of a place the timeline merges).
        let store = try Store(path: db)
        defer { store.close() }
        let key = try #require(try store.visits(of: try store.resolveSession("Rich").id).first?.key)
        try #require(try store.setVisitName(visitName, keys: [key]) == 1)
    }

    /// The name given to one of the hike's visits: it needs escaping in every format.
    static let visitName = #"Alm <hut> & "Kaser" 🏔"#

    /// The names of a session's visits, in arrival order (nil: none).
    static func visitNames(_ session: String, db: String) throws -> [String?] {
        let store = try Store(path: db)
        defer { store.close() }
        return try store.visits(of: try store.resolveSession(session).id).map(\.name)
    }

    /// How many of each kind the session holds, as `show --json`, `events --json` and `visits --json` say.
    static func counts(_ session: String, db: String) throws -> [Kind: Int] {
        func json(_ arguments: [String]) throws -> Any {
            let r = try runGPSLog(arguments, database: db)
            try #require(r.status == 0, "\(arguments.joined(separator: " ")): \(r.stderr)")
            return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
        }
        let show = try #require(try json(["show", session, "--json"]) as? [String: Any])
        let events = try #require(try json(["events", session, "--json"]) as? [Any])
        let visits = try #require(try json(["visits", session, "--json"]) as? [Any])
        return [
            .trackPoints: show["trackPoints"] as? Int ?? -1, .marks: show["marks"] as? Int ?? -1,
            .headingChanges: show["headingChanges"] as? Int ?? -1, .transitions: events.count, .visits: visits.count,
        ]
    }

    /// The one session of a database.
    static func onlySession(db: String) throws -> String {
        let r = try runGPSLog(["sessions"], database: db)
        let rows = r.stdout.split(separator: "\n").dropFirst()
        try #require(rows.count == 1, "\(r.stdout)")
        return String(rows.first!.split(separator: " ", omittingEmptySubsequences: true)[1])
    }

    @Test(arguments: formats)
    func exportImportExportGivesTheSameBytes(carriage: Carriage) throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/rich.sqlite"
            try Self.makeRichSession(db: db, dir: dir)
            let before = try Self.counts("Rich", db: db)
            // What the session must hold for the round trip to prove anything.
            #expect(before[.trackPoints]! > 2500 && before[.marks] == 3 && before[.headingChanges]! > 0)
            #expect(before[.transitions] == 2 && before[.visits]! > 10)
            let names = try Self.visitNames("Rich", db: db)
            #expect(names.compactMap { $0 } == [Self.visitName])
            let gpx = try runGPSLog(["export", "Rich", "--format", "gpx"], database: db).stdout
            #expect(gpx.components(separatedBy: "<trkseg>").count - 1 > 2, "segments")

            let first = try runGPSLog(["export", "Rich", "--format", carriage.format], database: db)
            try #require(first.status == 0, "\(first.stderr)")
            let file = dir + "/rich." + carriage.fileExtension
            try first.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            if carriage.format == "xml" {
                // Transitions and visits included, the export is what its schema says.
                let schema = try SchemaValidator(schemaPath: TestPaths.packageRoot + "/Schema/gpslog-sessions.xsd")
                #expect(schema.validate(file: file) == [])
                #expect(first.stdout.contains("<Transition ") && first.stdout.contains("<Visit "))
            }
            let again = dir + "/again.sqlite"
            let imported = try runGPSLog(["import", file], database: again)
            try #require(imported.status == 0, "\(carriage): \(imported.stderr)")
            let session = try Self.onlySession(db: again)
            let after = try Self.counts(session, db: again)
            for kind in Kind.allCases {
                #expect(
                    after[kind] == (carriage.lost.contains(kind) ? 0 : before[kind]),
                    "\(carriage): \(kind) \(before[kind]!) before, \(after[kind]!) after")
            }
            // Where visits come back, their names do (as the same bytes below cannot say: a writer that drops
            // the name writes it the second time no more than the first).
            if !carriage.lost.contains(.visits) {
                #expect(try Self.visitNames(session, db: again) == names, "\(carriage)")
            }
            let second = try runGPSLog(["export", session, "--format", carriage.format], database: again)
            try #require(second.status == 0, "\(second.stderr)")
            let firstLines = first.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let secondLines = second.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let differing = zip(firstLines, secondLines).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(
                second.stdout == first.stdout,
                "\(carriage): \(firstLines.count) lines, then \(secondLines.count); first difference at line \((differing?.offset ?? -1) + 1): \(String(differing?.element.0.prefix(300) ?? "")) | \(String(differing?.element.1.prefix(300) ?? ""))"
            )
        }
    }

    /// A CSV imported where its entries already are (the same file twice) keeps no taken id: the second session
    /// gets ids of its own, and both export whole.
    @Test func aCSVWhoseIdsAreTakenGetsIdsOfItsOwn() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/rich.sqlite"
            try Self.makeRichSession(db: db, dir: dir)
            let csv = dir + "/rich.csv"
            try #require(try runGPSLog(["export", "Rich", "--format", "csv", "-o", csv], database: db).status == 0)
            let again = dir + "/again.sqlite"
            for _ in 0..<2 {
                let r = try runGPSLog(["import", csv], database: again)
                try #require(r.status == 0, "\(r.stderr)")
            }
            let ids = try runGPSLog(["sessions", "--oldest-first"], database: again).stdout.split(separator: "\n")
                .dropFirst().map {
                    String($0.split(separator: " ", omittingEmptySubsequences: true)[1])
                }
            try #require(ids.count == 2)
            func entryIDs(_ session: String) throws -> [String] {
                try runGPSLog(["export", session, "--format", "csv"], database: again).stdout
                    .components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
                    .map { String($0.split(separator: ",").last!) }
            }
            let first = try entryIDs(ids[0])
            let second = try entryIDs(ids[1])
            #expect(first.count == 2660 && second.count == 2660)
            #expect(Set(first).isDisjoint(with: second))
            #expect(try String(contentsOfFile: csv, encoding: .utf8).contains(first[0]))
        }
    }

    /// `convert` of the session's GPX (transitions included) writes what importing it and exporting writes.
    @Test func convertKeepsTheTransitionsAsImportDoes() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/rich.sqlite"
            try Self.makeRichSession(db: db, dir: dir)
            let gpx = dir + "/rich.gpx"
            try #require(try runGPSLog(["export", "Rich", "--format", "gpx", "-o", gpx], database: db).status == 0)
            let again = dir + "/again.sqlite"
            try #require(try runGPSLog(["import", gpx], database: again).status == 0)
            for format in ["gpx", "geojson", "kml", "xml", "csv"] {
                let converted = try runGPSLog(["convert", gpx, "-", "--output-format", format])
                #expect(converted.status == 0, "\(format): \(converted.stderr)")
                let exported = try runGPSLog(["export", "Rich", "--format", format], database: again)
                #expect(converted.stdout == exported.stdout, "\(format)")
                if format != "csv" { #expect(converted.stdout.contains("leave"), "\(format)") }
            }
        }
    }

    /// The KML's track is Google's `gx:Track`: GPSBabel reads a time for every point (the track's times, as the
    /// CSV export has them), and GDAL reads as many lines as the GPX has segments.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/ogrinfo"), "needs gpsbabel and gdal-bin"))
    func theKMLTrackHasATimePerPointForGPSBabelAndGDAL() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/rich.sqlite"
            try Self.makeRichSession(db: db, dir: dir)
            let kml = dir + "/rich.kml"
            try #require(try runGPSLog(["export", "Rich", "--format", "kml", "-o", kml], database: db).status == 0)
            let csv = try runGPSLog(["export", "Rich", "--format", "csv"], database: db).stdout
            let times = csv.components(separatedBy: "\r\n").dropFirst().map { $0.components(separatedBy: ",") }
                .filter { $0.count > 3 && $0[2] == "track" }.map { $0[3] }
            #expect(times.count > 2500)
            let babel = try runTool("/usr/bin/gpsbabel", ["-t", "-i", "kml", "-f", kml, "-o", "unicsv", "-F", "-"])
            try #require(babel.status == 0)
            // No,Latitude,Longitude,Altitude,Date,Time with Date 2019/05/01 and Time 04:31:11.
            let read = babel.output.split(whereSeparator: \.isNewline).dropFirst().map { line -> String in
                let cells = line.split(separator: ",")
                return cells[4].replacingOccurrences(of: "/", with: "-") + "T" + cells[5] + "Z"
            }
            #expect(read == times)
            let gpx = try runGPSLog(["export", "Rich", "--format", "gpx"], database: db).stdout
            let segments = gpx.components(separatedBy: "<trkseg>").count - 1
            let ogr = try runTool("/usr/bin/ogrinfo", ["-ro", "-al", "-q", kml])
            try #require(ogr.status == 0)
            let line = try #require(ogr.output.split(separator: "\n").first { $0.contains("MULTILINESTRING") })
            #expect(line.components(separatedBy: "),(").count == segments)
            #expect(ogr.output.contains("event (String) = enter") && ogr.output.contains("event (String) = leave"))
        }
    }

    /// The KML of 300,000 points is written with flat memory (a track's coordinates wait in a scratch file while its
    /// times are written), measured in the binary's own process against the export of a few points.
    @Test func aLongTrackExportsAsKMLInFlatMemory() throws {
        try withTemporaryDirectory { dir in
            var gpx = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="t" "#
            gpx += #"xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Long</name><trkseg>"# + "\n"
            let start = 1_714_543_200
            let formatter = ISO8601DateFormatter()
            for i in 0..<300_000 {
                let time = formatter.string(from: Date(timeIntervalSince1970: Double(start + i)))
                gpx += String(
                    format: #"<trkpt lat="%.7f" lon="%.7f"><ele>%d</ele>"#, 52 + Double(i) * 1e-6, 5.0, i % 100)
                gpx += "<time>\(time)</time></trkpt>\n"
            }
            gpx += "</trkseg></trk></gpx>\n"
            try gpx.write(toFile: dir + "/long.gpx", atomically: true, encoding: .utf8)
            let db = dir + "/long.sqlite"
            try #require(try runGPSLog(["import", dir + "/long.gpx"], database: db).status == 0)
            try #require(try runGPSLog(["import", "--sample", "--name", "Small"], database: db).status == 0)
            let small = try runGPSLogMeasuringMemory(
                ["export", "Small", "--format", "kml", "-o", dir + "/small.kml"], database: db,
                outputPath: dir + "/small")
            let long = try runGPSLogMeasuringMemory(
                ["export", "Long", "--format", "kml", "-o", dir + "/long.kml"], database: db, outputPath: dir + "/long")
            #expect(small.status == 0 && long.status == 0)
            let growth = long.peakBytes - small.peakBytes
            #expect(growth < 32 << 20, "\(growth >> 20) MB more for 300,000 points")
            let kml = try String(contentsOfFile: dir + "/long.kml", encoding: .utf8)
            #expect(kml.components(separatedBy: "<when>").count - 1 == 300_000)
            #expect(kml.components(separatedBy: "<gx:coord>").count - 1 == 300_000)
        }
    }
}
