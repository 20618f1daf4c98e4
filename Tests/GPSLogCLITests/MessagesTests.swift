// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// What a person reads: errors in words, counts in the right number, quiet logs, help groups and option names.
@Suite(.ownThreads, .serialized) struct MessagesTests {
    /// A GPX file of exactly one point.
    static let onePoint = """
        <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>One</name>\
        <trkseg><trkpt lat="52.1" lon="5.1"><time>2024-05-01T10:00:00Z</time></trkpt></trkseg></trk></gpx>
        """

    static func oneSession(_ dir: String) throws -> String {
        let gpx = dir + "/one.gpx"
        try onePoint.write(toFile: gpx, atomically: true, encoding: .utf8)
        let db = dir + "/one.sqlite"
        let r = try runGPSLog(["import", gpx, "--name", "One"], database: db)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(": 1 entry"), "import of one point: \(r.stdout)")
        return db
    }

    @Test(.timeLimit(.minutes(5)))
    func unreachableServersAreNamedInWords() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Self.oneSession(dir)
            let upload = try await runGPSLogAsync(
                ["upload", "One", "--url", "http://127.0.0.1:1/", "--max-attempts", "1", "--timeout", "3s"],
                database: db, folder: dir)
            #expect(upload.status != 0)
            #expect(isPlainForPeople(upload.stderr) && upload.stderr.contains("127.0.0.1:1"), "\(upload.stderr)")
            let sync = try await runGPSLogAsync(["sync", "postgres://127.0.0.1:1/x"], database: db, folder: dir)
            #expect(sync.status != 0)
            #expect(isPlainForPeople(sync.stderr), "\(sync.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func geocodingWhoseEveryRequestFailedSaysWhyAndFails() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Self.oneSession(dir)
            let run = try await runGPSLogAsync(
                ["geocode", "--provider", "nominatim:http://127.0.0.1:1"], database: db, folder: dir)
            #expect(run.status != 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("warning: a request to nominatim:http://127.0.0.1:1 failed: "), "\(run.stderr)")
            #expect(run.stderr.contains("every request to"), "\(run.stderr)")
            #expect(run.stdout.contains("1 request,") && run.stdout.contains("1 failure"), "\(run.stdout)")
            #expect(isPlainForPeople(run.stderr), "\(run.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func oneThingIsCountedInTheSingular() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Self.oneSession(dir)
            let regions = dir + "/r.geojson"
            try
                #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Home"},"geometry":{"type":"Polygon","coordinates":[[[5,52],[5.2,52],[5.2,52.2],[5,52.2],[5,52]]]}}]}"#
                .write(toFile: regions, atomically: true, encoding: .utf8)
            let imported = try runGPSLog(["region", "import", regions], database: db)
            #expect(imported.stdout.hasPrefix("Imported 1 region."), "\(imported.stdout)\(imported.stderr)")

            let (serve, port) = try await LoopbackHTTP.serve(
                ["--no-view"], database: dir + "/serve.sqlite", folder: dir + "/serve")
            defer { serve.process.terminate() }
            let upload = try await runGPSLogAsync(
                ["upload", "One", "--url", "http://127.0.0.1:\(port)/api/overland"], database: db, folder: dir)
            #expect(upload.status == 0, "\(upload.stderr)")
            #expect(upload.stdout.contains(": 1 point in 1 batch"), "\(upload.stdout)")
            _ = await serve.exitStatus(timeout: 1)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func serveDoesNotLogEveryPostAtItsDefaultLevel() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let (serve, port) = try await LoopbackHTTP.serve(["--no-view"], database: db, folder: dir + "/serve")
            for second in 0..<20 {
                let body = ServeSecurityTests.batch(second)
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/api/overland", port: port, headers: [("Content-Type", "application/json")], body: body)
                #expect(answer.status == 200, "\(answer.text)")
            }
            #expect(try await ServeSecurityTests.storedPoints(db, folder: dir) == 20)
            serve.process.terminate()
            _ = await serve.exitStatus(timeout: 60)
            #expect(!serve.stderr.contains("stored "), "\(serve.stderr)")
            #expect(serve.stderr.split(separator: "\n").count < 10, "\(serve.stderr)")
        }
    }

    @Test func recordHelpListsSourceInTheSourceGroup() throws {
        let help = try runGPSLog(["record", "--help"]).stdout
        let group = try #require(help.range(of: "SOURCE:"), "\(help)")
        let next = help[group.upperBound...].range(of: "\n\n").map { help[group.upperBound..<$0.lowerBound] }
        #expect(next?.contains("--source") == true, "\(help)")
    }

    @Test func exportWithoutFormatOrOutputWritesGPXToStandardOutput() throws {
        try withTemporaryDirectory { dir in
            let db = try Self.oneSession(dir)
            let gpx = try runGPSLog(["export", "One"], database: db)
            #expect(gpx.status == 0, "\(gpx.stderr)")
            #expect(gpx.stdout.contains("<gpx") && gpx.stdout.contains("<trkpt"), "\(gpx.stdout)")
            let geojson = try runGPSLog(["export", "One", "-o", dir + "/x.geojson"], database: db)
            #expect(geojson.status == 0, "\(geojson.stderr)")
            let text = try String(contentsOfFile: dir + "/x.geojson", encoding: .utf8)
            #expect(text.contains("\"FeatureCollection\""))
        }
    }

    @Test func lastNamesTheNewestSession() throws {
        try withTemporaryDirectory { dir in
            let db = try Self.oneSession(dir)
            let later = dir + "/later.gpx"
            try Self.onePoint.replacingOccurrences(of: "2024-05-01", with: "2024-06-01")
                .write(toFile: later, atomically: true, encoding: .utf8)
            #expect(try runGPSLog(["import", later, "--name", "Later"], database: db).status == 0)
            let sessions = try runGPSLog(["sessions", "--json"], database: db).stdout
            let list = try JSONSerialization.jsonObject(with: Data(sessions.utf8)) as? [[String: Any]] ?? []
            let id = try #require(list.first { $0["name"] as? String == "Later" }?["id"] as? String)
            let last = try runGPSLog(["last"], database: db)
            #expect(last.status == 0, "\(last.stderr)")
            let first = last.stdout.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.contains("'Later'") && first.contains(id), "\(last.stdout)")
        }
    }

    @Test func convertTakesInputFormatAndStillTheOldFromWithAWarning() throws {
        try withTemporaryDirectory { dir in
            let gpx = dir + "/one.gpx"
            try Self.onePoint.write(toFile: gpx, atomically: true, encoding: .utf8)
            let new = try runGPSLog(
                ["convert", "--input-format", "gpx", gpx, dir + "/a.geojson"], database: dir + "/n.sqlite")
            #expect(new.status == 0 && new.stderr.isEmpty, "\(new.stderr)")
            let old = try runGPSLog(["convert", "--from", "gpx", gpx, dir + "/b.geojson"], database: dir + "/n.sqlite")
            #expect(old.status == 0, "\(old.stderr)")
            #expect(old.stderr.components(separatedBy: "deprecated").count == 2, "warns once: \(old.stderr)")
            #expect(!(try runGPSLog(["convert", "--help"]).stdout.contains("--from")))
            // The same track either way; each convert makes its session a new random id.
            func withoutSessionID(_ path: String) throws -> String {
                try String(contentsOfFile: path, encoding: .utf8).replacing(
                    /"session":"[0-9a-f-]{36}"/, with: "\"session\":\"\"")
            }
            let a = try withoutSessionID(dir + "/a.geojson")
            #expect(a.contains("\"coordinates\":[[5"))
            #expect(a == (try withoutSessionID(dir + "/b.geojson")))
        }
    }

    /// `--to` is a time on export, delete and plot: convert's output format is `--output-format`, and the old `--to`
    /// still works with a warning.
    @Test func convertTakesOutputFormatAndStillTheOldToWithAWarning() throws {
        try withTemporaryDirectory { dir in
            let gpx = dir + "/one.gpx"
            try Self.onePoint.write(toFile: gpx, atomically: true, encoding: .utf8)
            let new = try runGPSLog(["convert", gpx, "-", "--output-format", "csv"], database: dir + "/n.sqlite")
            #expect(new.status == 0 && new.stderr.isEmpty, "\(new.stderr)")
            let old = try runGPSLog(["convert", gpx, "-", "--to", "csv"], database: dir + "/n.sqlite")
            #expect(old.status == 0, "\(old.stderr)")
            #expect(old.stderr.components(separatedBy: "deprecated").count == 2, "warns once: \(old.stderr)")
            let help = try runGPSLog(["convert", "--help"]).stdout
            #expect(help.contains("--output-format") && !help.contains("--to "), "\(help)")
            let wrong = try runGPSLog(["convert", gpx, "-", "--output-format", "shp"], database: dir + "/n.sqlite")
            #expect(wrong.status != 0 && wrong.stderr.contains("--output-format must be one of"), "\(wrong.stderr)")
            // The same rows either way (each convert makes its session a new random id).
            func rows(_ csv: String) -> [String] {
                csv.split(whereSeparator: \.isNewline).map {
                    String($0).replacing(/[0-9a-f]{8}-[0-9a-f-]{27}/, with: "")
                }
            }
            #expect(rows(new.stdout).count > 1 && rows(new.stdout) == rows(old.stdout), "\(new.stdout)\n\(old.stdout)")
        }
    }
}
