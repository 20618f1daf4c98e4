// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog serve --mqtt` in place of the OwnTracks Recorder: a real Mosquitto broker, the real OwnTracks payloads
/// published by `mosquitto_pub`, the broker going away and coming back.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct ServeMQTTTests {
    /// The JSON of each line of an OwnTracks Recorder `.rec` file.
    static func messages(_ name: String) throws -> [String] {
        let text = try String(contentsOfFile: TestPaths.sharedData + "/payloads/" + name, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in line.firstIndex(of: "{").map { String(line[$0...]) } }
    }

    func publish(_ broker: MosquittoBroker, _ topic: String, _ message: String) throws {
        let r = try runMosquittoClient(
            "mosquitto_pub", ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", topic, "-q", "1", "-m", message])
        #expect(r.status == 0, "\(r.output)")
    }

    static func entries(_ db: String, session: String) -> Int? {
        guard let store = try? Store(path: db) else { return nil }
        defer { store.close() }
        guard let s = try? store.sessions().first(where: { $0.name == session }) else { return nil }
        return try? store.summary(of: s).entryCount
    }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func realPayloadsArriveOnceAndTheBrokerComesBack() throws {
        let messages = try Self.messages("owntracks-2024-03.rec")
        try #require(messages.count == 13)
        try withTemporaryDirectory { dir in
            var broker = try MosquittoBroker(folder: dir)
            let port = broker.port
            let db = dir + "/gpslog.sqlite"
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0", "--verbose", "--mqtt", "mqtt://127.0.0.1:\(port)"], database: db,
                folder: dir)
            #expect(waitUntil(timeout: 20) { serve.stderr.contains("subscribed to owntracks/#") }, "\(serve.stderr)")
            // 13 messages: 9 locations, of which one repeats an earlier time and place (as phones resend) and one
            // is at that time in another place (kept), and a transition, an lwt, a waypoint and a transition (stored
            // too: see ServeMQTTMessagesTests).
            for m in messages { try publish(broker, "owntracks/rob/phone", m) }
            #expect(waitUntil(timeout: 20) { Self.entries(db, session: "rob/phone") == 8 }, "\(serve.stderr)")
            #expect(waitUntil(timeout: 20) { serve.stderr.components(separatedBy: "(already there)").count - 1 == 1 })
            // The same again: nothing stored twice. Then garbage: logged and skipped.
            for m in messages { try publish(broker, "owntracks/rob/phone", m) }
            try publish(broker, "owntracks/rob/phone", #"{"_type":"location","lat":"north"}"#)
            try publish(broker, "owntracks/rob/phone", "not json \u{1B}[31m")
            #expect(waitUntil(timeout: 20) { serve.stderr.components(separatedBy: "skipped a message").count - 1 == 2 })
            #expect(serve.stderr.components(separatedBy: "(already there)").count - 1 == 1 + 13)
            #expect(!serve.stderr.contains("\u{1B}"), "nothing from outside reaches the log unescaped")
            #expect(Self.entries(db, session: "rob/phone") == 8)

            // The broker goes away and comes back on its port: serve reconnects and subscribes again.
            broker.kill()
            #expect(waitUntil(timeout: 20) { serve.stderr.contains("lost the MQTT broker") })
            broker = try MosquittoBroker(folder: dir, port: port)
            #expect(
                waitUntil(timeout: 40) {
                    serve.stderr.components(separatedBy: "subscribed to owntracks/#").count - 1 >= 2
                }, "\(serve.stderr)")
            let later = #"{"_type":"location","lat":52.3,"lon":13.3,"tst":1709300000,"tid":"RO"}"#
            try publish(broker, "owntracks/rob/phone", later)
            #expect(waitUntil(timeout: 20) { Self.entries(db, session: "rob/phone") == 9 }, "\(serve.stderr)")
        }
    }

    @Test func aBadMQTTURLIsRefused() throws {
        for url in ["http://127.0.0.1:1883", "mqtt://", "mqtt://user:secret@127.0.0.1"] {
            let r = try runGPSLog(["serve", "--mqtt", url], database: "/nonexistent/db.sqlite")
            #expect(r.status != 0, "\(url)")
            #expect(!r.stderr.contains("secret"))
        }
    }
}
