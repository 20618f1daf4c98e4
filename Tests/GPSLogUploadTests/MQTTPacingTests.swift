// SPDX-License-Identifier: MIT
import Foundation
import GPSLogMQTT
import GPSLogTestSupport
import Testing

/// `gpslog upload --url mqtt://` into a real Mosquitto that keeps at most 100 messages for a subscriber
/// (`max_queued_messages 100`), read by a slow persistent subscriber (clean session off, QoS 1, about 100 messages a
/// second at best): paced, every message reaches it; unpaced, the broker confirms them all and drops what its queue
/// cannot hold.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct MQTTPacingTests {
    /// Counts what a slow consumer stored, per topic.
    final class SlowConsumer: @unchecked Sendable {
        // @unchecked: `counts` goes through `lock`.
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func store(_ topic: String) {
            usleep(10_000)  // a slow store: the OwnTracks Recorder managed about 20 a second
            lock.withLock { counts[topic, default: 0] += 1 }
        }
        func count(_ topic: String) -> Int { lock.withLock { counts[topic] ?? 0 } }
    }

    static func writeGPX(_ path: String, count: Int) throws {
        let format = ISO8601DateFormatter()
        try writeGeneratedFile(
            path,
            head: #"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">"#
                + "<trk><name>Long drive</name><trkseg>",
            count: count, tail: "</trkseg></trk></gpx>"
        ) { i in
            let time = format.string(from: Date(timeIntervalSince1970: 1_714_543_200 + Double(i)))
            return #"<trkpt lat="\#(52.1 + Double(i) * 0.0001)" lon="5.3"><time>\#(time)</time></trkpt>"#
        }
    }

    /// The number in "Published 'Long drive' to ...: N locations".
    static func published(_ stdout: String) -> Int? {
        guard let range = stdout.range(of: #": (\d+) locations"#, options: .regularExpression) else { return nil }
        return Int(stdout[range].dropFirst(2).prefix { $0.isNumber })
    }

    @Test func aPacedUploadReachesASlowPersistentSubscriberInFull() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir, listenerOptions: "max_queued_messages 100\n")
            let db = dir + "/gpslog.sqlite"
            try Self.writeGPX(dir + "/drive.gpx", count: 1000)
            let imported = try runGPSLog(["import", dir + "/drive.gpx"], database: db)
            try #require(imported.status == 0, "\(imported.stderr)")

            let consumer = SlowConsumer()
            let subscriber = try MQTTClient(clientID: "slow-recorder", cleanSession: false)
            subscriber.onMessage = { topic, _, _ in consumer.store(topic) }
            subscriber.onSubscribed = { consumer.store("(subscribed)") }
            try subscriber.connect(host: "127.0.0.1", port: broker.port)
            defer { subscriber.disconnect() }
            try subscriber.subscribe("owntracks/#", qos: 1)
            #expect(waitUntil(timeout: 20) { consumer.count("(subscribed)") > 0 })

            let url = "mqtt://127.0.0.1:\(broker.port)"
            // 40 a second: under what the subscriber stores, however loaded the machine.
            let paced = try runGPSLog(
                ["upload", "Long drive", "--url", url, "--device-id", "rob/car", "--mqtt-rate", "40/s"], database: db)
            #expect(paced.status == 0, "\(paced.stderr)")
            let sent = try #require(Self.published(paced.stdout), "\(paced.stdout)")
            #expect(sent == 1000)
            #expect(
                waitUntil(timeout: 60) { consumer.count("owntracks/rob/car") == sent },
                "\(consumer.count("owntracks/rob/car")) of \(sent) stored")
            #expect(!broker.logText.contains("Outgoing messages are being dropped"))

            // The same unpaced: the broker confirms every message, and drops what the subscriber's queue cannot hold.
            let unpaced = try runGPSLog(
                ["upload", "Long drive", "--url", url, "--device-id", "rob/van", "--mqtt-rate", "off"], database: db)
            #expect(unpaced.status == 0 && Self.published(unpaced.stdout) == 1000, "\(unpaced.stderr)")
            #expect(
                waitUntil(timeout: 30) { broker.logText.contains("Outgoing messages are being dropped") },
                "the test's subscriber is not slow enough to show the loss")
            // A last message, published until it arrives: what came before it has been delivered or dropped.
            #expect(
                try waitUntil(timeout: 30) {
                    _ = try runMosquittoClient(
                        "mosquitto_pub",
                        ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/end/end", "-q", "1", "-m", "{}"])
                    return consumer.count("owntracks/end/end") > 0
                })
            #expect(consumer.count("owntracks/rob/van") < 1000)
        }
    }
}
