// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogStore
import GPSLogTestSupport
import Testing

/// export, import and convert, run through the real binary.
@Suite(.ownThreads)
struct ExchangeCommandsTests {
    @Test func exportWritesEveryFormatAndConvertNeedsNoDatabase() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Sail"], database: db).status == 0)
            for (format, file) in [
                ("gpx", "s.gpx"), ("geojson", "s.geojson"), ("kml", "s.kml"), ("csv", "s.csv"), ("xml", "s.xml"),
                ("overland", "s.json"), ("owntracks", "s.jsonl"), ("rec", "s.rec"),
            ] {
                let r = try runGPSLog(["export", "Sail", "--format", format, "-o", dir + "/" + file], database: db)
                #expect(r.status == 0, "\(format): \(r.stderr)")
                #expect(r.stdout == "Wrote \(dir)/\(file).\n")
                #expect(
                    (try FileManager.default.attributesOfItem(atPath: dir + "/" + file)[.posixPermissions] as? Int)
                        == 0o600)
            }
            // The extension says the format; stdout when no -o.
            let gpx = try runGPSLog(["export", "Sail", "--format", "gpx"], database: db)
            #expect(gpx.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
            #expect(try String(contentsOfFile: dir + "/s.gpx", encoding: .utf8) == gpx.stdout)

            // convert: no database is created or touched.
            let elsewhere = dir + "/never.sqlite"
            let converted = try runGPSLog(["convert", dir + "/s.gpx", dir + "/c.geojson"], database: elsewhere)
            #expect(converted.status == 0, "\(converted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: elsewhere))
            #expect(
                try String(contentsOfFile: dir + "/c.geojson", encoding: .utf8)
                    == (try String(contentsOfFile: dir + "/s.geojson", encoding: .utf8)))
            let nmea = try runGPSLog([
                "convert", TestPaths.packageRoot + "/Sources/GPSLogBundledRecording/bundg_zeus_9.log", "-",
                "--output-format",
                "csv",
            ])
            #expect(nmea.stdout.split(separator: "\r\n").count > 140)
        }
    }

    @Test func exportWindowsAndSimplifies() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try runGPSLog(["import", "--sample", "--name", "Sail"], database: db)
            _ = try runGPSLog(
                [
                    "mark", "--session", "Sail", "--lat", "52.849", "--lon", "5.311", "--time", "2018-08-20T09:48:30Z",
                    "Buoy",
                ], database: db)
            func points(_ extra: [String]) throws -> [[String]] {
                let out = try runGPSLog(["export", "Sail", "--format", "csv"] + extra, database: db).stdout
                return out.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
                    .map { $0.components(separatedBy: ",") }
            }
            let all = try points([]).filter { $0[2] == "track" }
            let window = try points(["--from", "2018-08-20T09:48:00Z", "--to", "2018-08-20T09:48:59Z"])
            let inRange = all.filter { $0[3] >= "2018-08-20T09:48:00Z" && $0[3] <= "2018-08-20T09:48:59Z" }
            let windowTrack = window.filter { $0[2] == "track" }
            #expect(windowTrack.count == inRange.count)
            #expect(inRange.count > 50)
            #expect(window.allSatisfy { $0[3] >= "2018-08-20T09:48:00Z" && $0[3] <= "2018-08-20T09:48:59Z" })
            let simple = try points(["--simplify", "5"])
            let track = simple.filter { $0[2] == "track" }
            #expect(track.count < all.count / 3 && track.count >= 2)
            #expect(track.first?[3] == all.first?[3] && track.last?[3] == all.last?[3])
            #expect(simple.contains { $0[2] == "mark" && $0[18] == "Buoy" })
            let bad = try runGPSLog(["export", "Sail", "--format", "shapefile"], database: db)
            #expect(bad.status == 64)
        }
    }

    /// A database in the iOS app GPS Log's layout (its template Log.db schema, values written as the app writes
    /// them: numbers as text, local times, 'n/a', heading rows at 0,0 in 1901).
    @Test func aGPSLogDatabaseImports() throws {
        try withTemporaryDirectory { dir in
            let logDB = dir + "/Log.db"
            let db = try Database(path: logDB)
            try db.execute(
                """
                CREATE TABLE "Sessions" ("Key" INTEGER NOT NULL, "ID" TEXT NOT NULL, "StartTime" TEXT, "EndTime" TEXT, "Name" TEXT, PRIMARY KEY("Key"));
                CREATE TABLE "Entries" ("Key" INTEGER NOT NULL, "Session" TEXT NOT NULL, "Latitude" TEXT, "Longitude" TEXT, "Altitude" TEXT,
                  "HorizontalAccuracy" TEXT, "VerticalAccuracy" TEXT, "TimeStamp" TEXT, "Speed" TEXT, "Course" TEXT, "Address" TEXT,
                  "Marked" TEXT, "EntryID" TEXT, "InstanceCount" INTEGER, "Heading" REAL NOT NULL, "IsHeadingChanged" NUMERIC NOT NULL,
                  "HeadingTimeStamp" TEXT NOT NULL, "MapX" REAL, "MapY" REAL, PRIMARY KEY("Key"));
                INSERT INTO Sessions VALUES (1, 'B7C5E1D2-8F4A-4E2B-9C3D-1A2B3C4D5E6F', '2019-12-10 08:00:00', '2019-12-10 08:10:00', 'Kitahiroshima to CTS');
                INSERT INTO Entries VALUES (1, 'B7C5E1D2-8F4A-4E2B-9C3D-1A2B3C4D5E6F', '42.9793', '141.5633', '25.0', '5.0', '3.0', '2019-12-10 08:00:05', '12.5', '90.0', 'n/a', 'false', 'A1B2C3D4-0000-4000-8000-000000000001', 1, 0.0, 0, '2019-12-10 08:00:05', 0, 0);
                INSERT INTO Entries VALUES (2, 'B7C5E1D2-8F4A-4E2B-9C3D-1A2B3C4D5E6F', '0', '0', '0', '0', '0', '1901-01-01 00:00:00', '0', '0', 'n/a', 'false', 'A1B2C3D4-0000-4000-8000-000000000002', 1, 135.5, 1, '2019-12-10 08:00:06', 0, 0);
                INSERT INTO Entries VALUES (3, 'B7C5E1D2-8F4A-4E2B-9C3D-1A2B3C4D5E6F', '42.9801', '141.5702', '-1.0', '-1.0', '-1.0', '2019-12-10 08:01:05', '-1.0', '-1.0', '北広島市, 北海道', 'true', 'A1B2C3D4-0000-4000-8000-000000000003', 3, 0.0, 0, '2019-12-10 08:01:05', 0, 0);
                INSERT INTO Entries VALUES (4, '0F0F0F0F-1111-4222-8333-444455556666', '43.0', '141.6', '10.0', '8.0', '4.0', '2019-12-11 09:00:00', '1.0', '10.0', 'n/a', 'false', 'A1B2C3D4-0000-4000-8000-000000000004', 1, 0.0, 0, '2019-12-11 09:00:00', 0, 0);
                """)
            db.close()
            let target = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", logDB, "--timezone", "Asia/Tokyo"], database: target)
            #expect(r.status == 0, "\(r.stderr)")
            let store = try Store(path: target)
            defer { store.close() }
            let sessions = try store.sessions()
            #expect(sessions.map(\.name) == ["Kitahiroshima to CTS", "GPS Log session 0F0F0F0F"])
            let trip = sessions[0]
            #expect(trip.id == "b7c5e1d2-8f4a-4e2b-9c3d-1a2b3c4d5e6f")
            #expect(trip.start.iso8601() == "2019-12-09T23:00:00Z" && trip.end?.iso8601() == "2019-12-09T23:10:00Z")
            var rows: [GPSLogModel.Entry] = []
            try store.entries(of: trip.id).forEach { rows.append($0) }
            #expect(rows.count == 3)
            #expect(rows[0].time.iso8601() == "2019-12-09T23:00:05Z" && rows[0].speed == 12.5 && rows[0].address == nil)
            #expect(rows[1].isHeadingChanged && rows[1].heading == 135.5 && rows[1].latitude == 42.9793)
            #expect(rows[2].marked && rows[2].address == "北広島市, 北海道" && rows[2].instanceCount == 3)
            #expect(rows[2].speed == nil && rows[2].horizontalAccuracy == nil && rows[2].altitude == -1)
        }
    }
}

/// `convert` reads GPX through its fast paths (GeoJSON written while the GPX is parsed; a spool file for the other
/// formats) rather than SQLite; what it writes must be exactly what import-then-export writes, for real files and
/// for a track out of time order (which falls back to SQLite, which sorts), with marks and a time gap.
@Suite(.ownThreads)
struct ConvertThroughSpoolTests {
    static let shuffled = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
          <wpt lat="52.5" lon="5.5"><time>2024-05-01T06:00:30Z</time><name>Jetty &amp; "pier" 🚤</name><desc>Harbour</desc></wpt>
          <trk><name>Shuffled</name><trkseg>
            <trkpt lat="52.5001" lon="5.5001"><ele>1.5</ele><time>2024-05-01T06:00:10Z</time></trkpt>
            <trkpt lat="52.5000" lon="5.5000"><ele>1</ele><time>2024-05-01T06:00:00Z</time></trkpt>
            <trkpt lat="52.5002" lon="5.5002"><time>2024-05-01T06:00:20Z</time><extensions><speed>1.25</speed></extensions></trkpt>
            <trkpt lat="52.5100" lon="5.5100"><time>2024-05-01T07:00:20Z</time><sat>7</sat><hdop>0.9</hdop></trkpt>
          </trkseg></trk>
        </gpx>
        """

    /// UUIDs are random for files that do not carry our session id.
    static func withoutIDs(_ text: String) -> String {
        text.replacingOccurrences(
            of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", with: "UUID",
            options: .regularExpression)
    }

    @Test func convertWritesWhatImportThenExportWrites() throws {
        try withTemporaryDirectory { dir in
            let shuffled = dir + "/shuffled.gpx"
            try Self.shuffled.write(toFile: shuffled, atomically: true, encoding: .utf8)
            var inputs = [shuffled, TestPaths.packageRoot + "/Exports/sample.gpx"]
            let realFolder = TestPaths.sharedData + "/gpx"
            if let real = try? FileManager.default.contentsOfDirectory(atPath: realFolder) {
                inputs += real.filter { $0.hasSuffix(".gpx") }.sorted().map { realFolder + "/" + $0 }
            }
            for (i, input) in inputs.enumerated() {
                let db = dir + "/db\(i).sqlite"
                let imported = try runGPSLog(["import", input, "--routes"], database: db)
                #expect(imported.status == 0, "\(input): \(imported.stderr)")
                // File order, as convert writes them.
                let ids = try Store(path: db).sessions().sorted { $0.key < $1.key }.map(\.id)
                for format in ["xml", "geojson", "gpx", "csv"] {
                    let converted = try runGPSLog(["convert", input, "-", "--output-format", format, "--routes"])
                    #expect(converted.status == 0, "\(input) \(format): \(converted.stderr)")
                    let exported = try runGPSLog(["export"] + ids + ["--format", format], database: db)
                    #expect(
                        Self.withoutIDs(converted.stdout) == Self.withoutIDs(exported.stdout), "\(input) as \(format)")
                    if input.hasSuffix("/Exports/sample.gpx") {
                        // Our own export keeps its session id, and entry ids are drawn from it: the ids match too,
                        // also the mark's in GeoJSON, which makes no ids for track points but draws for them.
                        #expect(converted.stdout == exported.stdout, "ids of \(input) as \(format)")
                    }
                }
            }
            // The shuffled track comes out in time order, split at the hour's gap, the mark in its place.
            let csv = try runGPSLog(["convert", shuffled, "-", "--output-format", "csv"]).stdout
            let times = csv.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map {
                $0.components(separatedBy: ",")[3]
            }
            #expect(
                times == [
                    "2024-05-01T06:00:00Z", "2024-05-01T06:00:10Z", "2024-05-01T06:00:20Z", "2024-05-01T06:00:30Z",
                    "2024-05-01T07:00:20Z",
                ])
            let geojson = try runGPSLog(["convert", shuffled, "-", "--output-format", "geojson"]).stdout
            #expect(geojson.contains("\"MultiLineString\""))
            #expect(geojson.contains(#""label":"Jetty & \"pier\" 🚤""#))
        }
    }

    /// A convert that fails part-way (a bad point after a whole track; a file cut short) leaves no output and no
    /// temporary file behind, whichever path it took.
    @Test func aFailedConvertLeavesNothingBehind() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
            let whole = Self.shuffled.replacingOccurrences(of: "</gpx>", with: "")
                .replacingOccurrences(of: "Shuffled", with: "First")
                .replacingOccurrences(of: "06:00:00Z", with: "06:00:15Z")  // in time order: the stream path
            let inputs = [
                "badpoint.gpx": whole
                    + #"<trk><trkseg><trkpt lat="95" lon="5"><time>2024-05-01T08:00:00Z</time></trkpt></trkseg></trk></gpx>"#,
                "cut.gpx": whole + "<trk><trkseg><trkpt lat=\"52\" lo",
            ]
            for (name, text) in inputs {
                try text.write(toFile: dir + "/in/" + name, atomically: true, encoding: .utf8)
                for format in ["geojson", "gpx", "csv"] {
                    let out = dir + "/out-\(name)-\(format)"
                    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                    let result = try runGPSLog(["convert", dir + "/in/" + name, out + "/track." + format])
                    #expect(result.status == 1, "\(name) as \(format)")
                    #expect(result.stderr.contains(name), "\(name) as \(format): \(result.stderr)")
                    #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty, "\(name) as \(format)")
                }
            }
        }
    }
}
