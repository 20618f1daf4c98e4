// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// `gpslog serve --mqtt` stores every OwnTracks message type as the OwnTracks Recorder does: the real payloads of a
/// Recorder's `.rec` file, each published by `mosquitto_pub` on the topic the app uses, to a real Mosquitto broker,
/// then read back with the CLI (`devices`, `events`, `export`); cards, other types and malformed messages beside.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct ServeMQTTMessagesTests {
    static let device = "test/iPhone 12 Pro"
    static let base = "owntracks/" + device

    /// Each line of the `.rec` file as (topic, JSON): the topic the payload names (`topic`, HTTP mode's), else the
    /// device's base topic with the Recorder's relative topic (second column: `*` the base, `event`, `lwt`...).
    static func recMessages() throws -> [(topic: String, json: String)] {
        let text = try String(
            contentsOfFile: TestPaths.sharedData + "/payloads/owntracks-2024-03.rec", encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let columns = line.split(separator: "\t", maxSplits: 2)
            try #require(columns.count == 3, "\(line)")
            let relative = columns[1].trimmingCharacters(in: .whitespaces)
            let json = String(columns[2])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
            let topic = object["topic"] as? String ?? (relative == "*" ? base : base + "/" + relative)
            return (topic, json)
        }
    }

    func publish(_ broker: MosquittoBroker, _ topic: String, _ message: String, folder: String) throws {
        // A message over Linux's 128 KiB argument limit goes through a file.
        var arguments = ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", topic, "-q", "1"]
        if message.utf8.count > 100_000 {
            let file = folder + "/message.json"
            try message.write(toFile: file, atomically: true, encoding: .utf8)
            arguments += ["-f", file]
        } else {
            arguments += ["-m", message]
        }
        let r = try runMosquittoClient("mosquitto_pub", arguments)
        #expect(r.status == 0, "\(r.output)")
    }

    /// `gpslog ARGUMENTS --json` parsed.
    static func json(_ arguments: [String], _ db: String) throws -> Any? {
        let r = try runGPSLog(arguments + ["--json"], database: db)
        guard r.status == 0 else { return nil }
        return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
    }

    static func devices(_ db: String) throws -> [[String: Any]] {
        try json(["devices", "--waypoints"], db) as? [[String: Any]] ?? []
    }

    static func count(_ text: String, _ words: String) -> Int { text.components(separatedBy: words).count - 1 }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func everyMessageTypeOfARecorderFileIsStoredOnce() throws {
        let messages = try Self.recMessages()
        try #require(messages.count == 13)
        #expect(
            Set(messages.map(\.topic)) == [
                Self.base, Self.base + "/event", Self.base + "/lwt", Self.base + "/waypoints",
            ])
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let db = dir + "/gpslog.sqlite"
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0", "--verbose", "--mqtt", "mqtt://127.0.0.1:\(broker.port)"],
                database: db,
                folder: dir)
            #expect(waitUntil(timeout: 20) { serve.stderr.contains("subscribed to owntracks/#") }, "\(serve.stderr)")
            for m in messages { try publish(broker, m.topic, m.json, folder: dir) }

            // 9 locations (one repeats an earlier time and place: 8 stored; one more at that time is elsewhere, kept),
            // 2 transitions, a waypoint, an lwt.
            #expect(
                try waitUntil(timeout: 30) {
                    guard let d = try Self.devices(db).first else { return false }
                    return d["lastWill"] != nil && d["waypoints"] as? Int == 1 && d["lastLocation"] != nil
                        && Self.count(serve.stderr, "OwnTracks transition") == 2
                        && ServeMQTTTests.entries(db, session: Self.device) == 8
                }, "\(serve.stderr)")
            func checkStored() throws {
                let devices = try Self.devices(db)
                try #require(devices.count == 1, "\(devices)")
                let d = devices[0]
                #expect(d["device"] as? String == Self.device && d["session"] as? String == Self.device)
                #expect(d["lastLocation"] as? String == "2024-03-01T18:42:57Z")
                #expect(d["lastWillConnected"] as? String == "2024-06-04T00:00:08Z")
                #expect(d["name"] == nil && d["waypoints"] as? Int == 1)
                let waypoint = try #require((d["waypointList"] as? [[String: Any]])?.first)
                #expect(waypoint["desc"] as? String == "Home" && waypoint["radius"] as? Double == 50)
                #expect(waypoint["created"] as? String == "2024-06-04T00:09:28Z" && waypoint["rid"] == nil)

                let events = try #require(try Self.json(["events", Self.device], db) as? [[String: Any]])
                try #require(events.count == 2, "\(events)")
                #expect(events[0]["event"] as? String == "leave" && events[0]["region"] as? String == "home")
                #expect(events[0]["rid"] as? String == "5f1d1b" && events[0]["trigger"] as? String == "c")
                #expect(events[0]["time"] as? String == "2024-03-01T18:26:55Z")
                #expect(events[1]["event"] as? String == "enter" && events[1]["region"] as? String == "Home")
                #expect(events[1]["rid"] == nil && events[1]["trigger"] as? String == "l")
                #expect(events[1]["latitude"] as? Double == 52.232 && events[1]["horizontalAccuracy"] as? Double == 5)
                #expect(ServeMQTTTests.entries(db, session: Self.device) == 8)

                // The region of the second came with the waypoint (no rid: its wtst is the waypoint's tst); the
                // first's region was never published, so its centre and radius stay unknown.
                let store = try Store(path: db)
                defer { store.close() }
                let s = try store.database.makeStatement(
                    "SELECT RegionLatitude, RegionLongitude, RegionRadius FROM Transitions ORDER BY TimeStamp")
                var regions: [[Double?]] = []
                while try s.step() { regions.append([s.double(at: 0), s.double(at: 1), s.double(at: 2)]) }
                #expect(regions == [[nil, nil, nil], [52.232, 13.339, 50]])
            }
            try checkStored()

            // The OwnTracks export writes each transition with its own t (and no rid where there was none).
            let export = try runGPSLog(["export", Self.device, "--format", "owntracks"], database: db)
            #expect(export.status == 0, "\(export.stderr)")
            let lines = export.stdout.split(separator: "\n")
            // 8 locations, 2 transitions, and first a waypoint for the one region whose centre is known (as the
            // Recorder's files have it).
            #expect(lines.count == 1 + 8 + 2, "\(lines)")
            #expect(
                lines.first?.contains(#""_type":"waypoint""#) == true
                    && lines.first?.contains(#""desc":"Home""#) == true)
            let transitions = lines.filter { $0.contains(#""_type":"transition""#) }
            #expect(transitions.count == 2)
            #expect(transitions.first?.contains(#""rid":"5f1d1b","t":"c""#) == true, "\(transitions)")
            #expect(transitions.last?.contains(#""desc":"Home","t":"l""#) == true, "\(transitions)")
            for (format, enter, leave) in [
                ("gpx", "<type>enter</type>", "<type>leave</type>"),
                ("geojson", #""event":"enter""#, #""event":"leave""#),
            ] {
                let other = try runGPSLog(["export", Self.device, "--format", format], database: db)
                #expect(
                    other.status == 0 && Self.count(other.stdout, enter) == 1 && Self.count(other.stdout, leave) == 1)
            }

            // Published again, as phones and retained messages do: every one is already there, nothing changes.
            let before = Self.count(serve.stderr, "(already there)")
            #expect(before == 1, "\(serve.stderr)")
            for m in messages { try publish(broker, m.topic, m.json, folder: dir) }
            #expect(
                waitUntil(timeout: 30) { Self.count(serve.stderr, "(already there)") == before + 13 }, "\(serve.stderr)"
            )
            try checkStored()
            #expect(Self.count(serve.stderr, "skipped") == 0, "\(serve.stderr)")
        }
    }

    /// A card, messages that are not stored, and malformed ones: each malformed one is logged naming its topic and
    /// field, escaped, and stores nothing at all (no device, no session).
    @Test func cardsAreKeptAndMalformedMessagesStoreNothing() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let db = dir + "/gpslog.sqlite"
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--verbose"],
                database: db, folder: dir)
            #expect(waitUntil(timeout: 20) { serve.stderr.contains("subscribed to owntracks/#") }, "\(serve.stderr)")

            // A PNG's signature and header are all that is checked.
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 1000)
            let face = Data(png).base64EncodedString()
            let card = #"{"_type":"card","name":"Rob Roy","tid":"RR","face":"\#(face)"}"#
            try publish(broker, "owntracks/rob/phone/info", card, folder: dir)
            try publish(broker, "owntracks/rob/phone", #"{"_type":"lwt","tst":1709300000}"#, folder: dir)
            try publish(
                broker, "owntracks/rob/phone/status", #"{"_type":"status","iOS":{"version":"17"}}"#, folder: dir)
            try publish(broker, "owntracks/rob/phone/cmd", #"{"_type":"cmd","action":"reportLocation"}"#, folder: dir)
            #expect(
                try waitUntil(timeout: 20) {
                    try Self.devices(db).first?["lastWill"] != nil
                        && serve.stderr.contains("skipped an OwnTracks cmd message on owntracks/rob/phone/cmd")
                }, "\(serve.stderr)")
            #expect(serve.stderr.contains("skipped an OwnTracks status message on owntracks/rob/phone/status"))
            try publish(broker, "owntracks/rob/phone/info", card, folder: dir)
            #expect(
                waitUntil(timeout: 20) {
                    serve.stderr.contains("stored the card of 'rob/phone' ('Rob Roy') (already there)")
                })

            // A 150 KB face: over the 64 KB other messages may hold, under a card's 384 KB.
            let largeFace = Data(png + Array(repeating: 9, count: 150_000)).base64EncodedString()
            try publish(
                broker, "owntracks/big/phone/info", #"{"_type":"card","name":"Big","face":"\#(largeFace)"}"#,
                folder: dir)
            let big = Data(repeating: 0xFF, count: 270_000).base64EncodedString()
            let huge = Data(repeating: 0xFF, count: 300_000).base64EncodedString()
            let location = #""lon":13.3,"tst":1709300000"#
            // (topic, payload, words the log line must hold)
            let bad: [(String, String, String)] = [
                (
                    "owntracks/bad1/phone/event",
                    #"{"_type":"transition","event":"enter","tst":"1709317615","wtst":1709300000,"lat":52.2,"lon":13.3,"desc":"Home"}"#,
                    "tst"
                ),
                (
                    "owntracks/bad2/phone/event",
                    #"{"_type":"transition","event":"enter","tst":1709317615,"wtst":1709300000,"lat":200,"lon":13.3,"desc":"Home"}"#,
                    "lat '200"
                ),
                (
                    "owntracks/bad3/phone/event",
                    #"{"_type":"transition","event":"arrive","tst":1709317615,"wtst":1709300000,"lat":52.2,"lon":13.3,"desc":"Home"}"#,
                    "event 'arrive'"
                ),
                (
                    "owntracks/bad4/phone/waypoint",
                    #"{"_type":"waypoint","desc":"Hut","tst":1709300000,"lat":200,"lon":13.3,"rad":50}"#, "lat '200"
                ),
                (
                    "owntracks/bad5/phone/waypoints",
                    #"{"_type":"waypoints","waypoints":[{"desc":"Hut","tst":1709300000},{"desc":"Hut","tst":1709300000,"rad":-5}]}"#,
                    "waypoints[1].rad"
                ),
                ("owntracks/bad6/phone", #"{"_type":"location","lat":200,\#(location)}"#, "lat '200'"),
                ("owntracks/bad7/phone", #"{"_type":"lwt","tst":true}"#, "tst 'not a number'"),
                (
                    "owntracks/bad8/phone/info", #"{"_type":"card","name":"Eve","face":"!!not base64!!"}"#,
                    "face 'not base64'"
                ),
                (
                    "owntracks/bad9/phone/info", #"{"_type":"card","name":"Eve","face":"\#(big)"}"#,
                    "face '360000 bytes of base64"
                ),
                (
                    "owntracks/bad10/phone/info", #"{"_type":"card","name":"Eve","face":"\#(huge)"}"#,
                    "larger than 393216"
                ),
                (
                    "owntracks/bad11/phone/info", #"{"_type":"card","name":"\#(String(repeating: "E", count: 300))"}"#,
                    "name '300 characters"
                ),
                ("owntracks/bad12/phone/info", #"{"_type":"card","name":42}"#, "name 'not a string'"),
                (
                    "owntracks/bad13/phone/info",
                    #"{"_type":"card","face":"\#(Data("GIF89a...".utf8).base64EncodedString())"}"#, "not a PNG or JPEG"
                ),
                (
                    "owntracks/bad14/phone/event",
                    #"{"_type":"transition","event":"leave","tst":1709317615,"wtst":1709300000,"lat":52.2,"lon":13.3,"desc":"\u001B[31mred"}"#,
                    ""
                ),
                (
                    "owntracks/bad15/phone/event",
                    #"{"_type":"transition","event":"leave","tst":1709317615,"wtst":1709300000,"lat":52.2,"lon":13.3}"#,
                    "desc 'missing, and no rid"
                ),
                (
                    "owntracks/bad16/phone", #"{"_type":"location","lat":52.2,"lon":13.3,"tst":4102444800}"#,
                    "outside 1980 to tomorrow"
                ),
            ]
            for (topic, payload, _) in bad { try publish(broker, topic, payload, folder: dir) }
            // The one with an escape in its desc is not malformed: stored, and logged escaped.
            #expect(
                waitUntil(timeout: 30) { Self.count(serve.stderr, "skipped a ") == bad.count - 1 }, "\(serve.stderr)")
            let log = serve.stderr.split(separator: "\n")
            for (topic, _, words) in bad where !words.isEmpty {
                #expect(
                    log.contains { $0.contains("skipped a ") && $0.contains(" on \(topic):") && $0.contains(words) },
                    "\(topic): \(words)\n\(serve.stderr)")
            }
            #expect(!serve.stderr.contains("\u{1B}"), "nothing from outside reaches the log unescaped")

            let devices = try Self.devices(db)
            #expect(devices.map { $0["device"] as? String } == ["bad14/phone", "big/phone", "rob/phone"], "\(devices)")
            #expect(devices[1]["faceBytes"] as? Int == png.count + 150_000)
            let rob = try #require(devices.last)
            #expect(rob["name"] as? String == "Rob Roy" && rob["tid"] as? String == "RR")
            #expect(rob["faceBytes"] as? Int == png.count && rob["session"] == nil)
            #expect(rob["lastWillConnected"] as? String == "2024-03-01T13:33:20Z" && rob["waypoints"] as? Int == 0)
            // Only the transition whose desc held an escape made a session; a card and an lwt make none.
            let sessions = try #require(try Self.json(["sessions"], db) as? [[String: Any]])
            #expect(sessions.map { $0["name"] as? String } == ["bad14/phone"], "\(sessions)")
            let text = try runGPSLog(["devices"], database: db)
            #expect(text.stdout.contains("rob/phone") && text.stdout.contains("Rob Roy"), "\(text.stdout)")
        }
    }
}
