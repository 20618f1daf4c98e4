// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog import` of what the OwnTracks Recorder itself writes, in the layouts of its source (owntracks/recorder):
/// ocat.c prints `{"count":N,"locations":[...]}` (json_stringify with JSON_INDENT) for `--format json`, its default;
/// http.c answers `/api/0/locations` with `{"count":N,"data":[...],"status":200}`; each element is a `.rec` line's
/// location as storage.c's line_to_location enriched it (`ghash`, `isorcv`, `isotst`, `disptst`, `addr`...), with
/// only the `--fields` asked for when given. ocat.c's csv_output heads its CSV with the first location's keys.
@Suite(.ownThreads)
struct OwnTracksRecorderOutputTests {
    /// Three locations as the Recorder returns them: the payload the app published, then the Recorder's fields.
    static let locations = [
        #"{"_type":"location","acc":10,"alt":36,"batt":94,"lat":52.2251,"lon":13.3321,"t":"p","tid":"RO","tst":1709283789,"vel":5,"ghash":"u33d8bc","isorcv":"2024-03-01T09:03:09Z","isotst":"2024-03-01T09:03:09Z","disptst":"2024-03-01 09:03:09","addr":"Hauptstraße 1, Berlin","cc":"DE"}"#,
        #"{"_type":"location","acc":9,"alt":37,"batt":93,"lat":52.2262,"lon":13.3335,"t":"u","tid":"RO","tst":1709283849,"vel":4,"cog":98,"ghash":"u33d8bf","isorcv":"2024-03-01T09:04:09Z","isotst":"2024-03-01T09:04:09Z","disptst":"2024-03-01 09:04:09"}"#,
        #"{"_type":"location","acc":8,"lat":52.2273,"lon":13.3349,"tid":"RO","tst":1709283909,"ghash":"u33d8c0","isorcv":"2024-03-01T09:05:09Z","isotst":"2024-03-01T09:05:09Z","disptst":"2024-03-01 09:05:09"}"#,
    ]

    /// Imports `text` as `file` under the session name `name`; returns the session's entries.
    static func imported(_ text: String, file: String, name: String, dir: String) throws -> [Entry] {
        let path = dir + "/" + file
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let db = dir + "/\(name).sqlite"
        let r = try runGPSLog(["import", path, "--name", name], database: db)
        try #require(r.status == 0, "\(file): \(r.stderr)")
        #expect(r.stdout.contains(": 3 entries"), "\(r.stdout)")
        let store = try Store(path: db)
        defer { store.close() }
        let session = try #require(try store.sessions().first)
        var entries: [Entry] = []
        try store.entries(of: session.id).forEach { entries.append($0) }
        return entries
    }

    @Test func ocatsJSONTheAPIsAnswerAndALocationsArrayAreImported() throws {
        try withTemporaryDirectory { dir in
            // ocat's default output, indented as json_stringify(obj, JSON_INDENT) writes it.
            let ocat =
                "{\n  \"count\": 3,\n  \"locations\": [\n    " + Self.locations.joined(separator: ",\n    ")
                + "\n  ]\n}\n"
            let api = #"{"count":3,"data":["# + Self.locations.joined(separator: ",") + #"],"status":200}"#
            let bare = #"{"locations":["# + Self.locations.joined(separator: ",") + "]}"
            // `ocat --fields tst,lat,lon,acc`: no _type.
            let fields =
                #"{"count":3,"locations":[{"tst":1709283789,"lat":52.2251,"lon":13.3321,"acc":10},"#
                + #"{"tst":1709283849,"lat":52.2262,"lon":13.3335,"acc":9},"#
                + #"{"tst":1709283909,"lat":52.2273,"lon":13.3349,"acc":8}]}"#
            for (file, text) in [("ocat.json", ocat), ("api.json", api), ("bare.json", bare), ("fields.json", fields)] {
                let entries = try Self.imported(text, file: file, name: String(file.prefix { $0 != "." }), dir: dir)
                #expect(entries.map(\.time.milliseconds) == [1_709_283_789_000, 1_709_283_849_000, 1_709_283_909_000])
                #expect(
                    zip(entries.map(\.latitude), [52.2251, 52.2262, 52.2273]).allSatisfy { abs($0 - $1) < 1e-7 },
                    "\(file)")
                #expect(entries.map(\.horizontalAccuracy) == [10, 9, 8], "\(file)")
                if file != "fields.json" {
                    #expect(entries[1].marked && entries[1].speed.map { abs($0 - 4 / 3.6) < 1e-9 } == true, "\(file)")
                    #expect(entries[0].batteryLevel == 0.94)
                }
            }
        }
    }

    @Test func aBadValueInTheRecordersJSONNamesItsElement() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/bad.json"
            let bad = Self.locations[2].replacingOccurrences(of: #""lat":52.2273"#, with: #""lat":95"#)
            try (#"{"count":3,"data":["# + Self.locations[0...1].joined(separator: ",") + "," + bad + "]}").write(
                toFile: path, atomically: true, encoding: .utf8)
            let r = try runGPSLog(["import", path], database: dir + "/gpslog.sqlite")
            #expect(r.status != 0)
            #expect(r.stderr.contains("data[2].lat '95' is not valid; nothing was imported"), "\(r.stderr)")
        }
    }

    @Test func ocatsCSVIsRefusedSayingHowToReadTheRecordersData() throws {
        try withTemporaryDirectory { dir in
            // csv_output: the header is the first location's 13 keys; the second location has 15.
            let csv = """
                _type,acc,alt,batt,lat,lon,tid,tst,vel,ghash,isorcv,isotst,disptst
                location,10,36,94,52.225100,13.332100,RO,1709283789,5,u33d8bc,2024-03-01T09:03:09Z,2024-03-01T09:03:09Z,2024-03-01 09:03:09
                location,9,37,93,52.226200,13.333500,RO,1709283849,4,98,u,u33d8bf,2024-03-01T09:04:09Z,2024-03-01T09:04:09Z,2024-03-01 09:04:09

                """
            let path = dir + "/ocat.csv"
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try runGPSLog(["import", path], database: dir + "/gpslog.sqlite")
            #expect(r.status != 0)
            #expect(r.stderr.contains("ocat --format csv"), "\(r.stderr)")
            #expect(r.stderr.contains("ocat --format json"), "\(r.stderr)")
        }
    }
}
