// SPDX-License-Identifier: MIT
import Foundation
import GPSLogMQTT
import GPSLogTestSupport
import Testing

/// Messages over a subscriber's limit, against a real Mosquitto: the broker keeps them back when the client
/// announced MQTT v5's Maximum Packet Size, and the client refuses them by size before copying when a broker sends
/// them all the same.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct MessageSizeTests {
    /// A subscribed client, connected, with its messages and oversized messages gathered.
    func subscribed(
        _ broker: MosquittoBroker, maximumPacket: UInt32?, limit: Int?
    ) throws -> (MQTTClient, Received, Received) {
        let client = try MQTTClient(clientID: "gpslog-size-\(UUID().uuidString.prefix(6))")
        if let maximumPacket { try client.setMaximumPacketSize(maximumPacket) }
        let (received, oversized) = (Received(), Received())
        client.onMessage = { topic, payload, _ in received.add(topic, payload) }
        if let limit {
            client.payloadLimit = { _ in limit }
            client.onOversized = { topic, size in oversized.add(topic, Data("\(size)".utf8)) }
        }
        let subscribed = Received()
        client.onSubscribed = { subscribed.add("", Data()) }
        client.onConnection = { [weak client] code in if code == 0 { try? client?.subscribe("owntracks/#") } }
        try client.connectInBackground(host: "127.0.0.1", port: broker.port)
        #expect(waitUntil(timeout: 20) { !subscribed.messages.isEmpty }, "\(broker.logText)")
        return (client, received, oversized)
    }

    func publish(_ broker: MosquittoBroker, file: String? = nil, message: String? = nil) throws {
        let body = file.map { ["-f", $0] } ?? ["-m", message ?? "{}"]
        let r = try runMosquittoClient(
            "mosquitto_pub", ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/rob/pi", "-q", "1"] + body)
        #expect(r.status == 0, "\(r.output)")
    }

    @Test func theBrokerKeepsBackAMessageOverTheAnnouncedMaximum() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let (client, received, _) = try subscribed(broker, maximumPacket: 10_000, limit: nil)
            defer { client.disconnect() }
            let big = dir + "/big.json"
            try Data(repeating: UInt8(ascii: "x"), count: 1 << 20).write(to: URL(fileURLWithPath: big))
            try publish(broker, file: big)
            try publish(broker, message: #"{"after":1}"#)
            #expect(waitUntil(timeout: 20) { received.messages.contains { $0.payload == Data(#"{"after":1}"#.utf8) } })
            #expect(received.messages.allSatisfy { $0.payload.count < 10_000 }, "the 1 MB message came")
        }
    }

    @Test func aMessageOverTheLimitIsRefusedBeforeItIsCopied() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            // MQTT 3.1.1: no maximum announced, so the broker sends it, and the client refuses it by its size.
            let (client, received, oversized) = try subscribed(broker, maximumPacket: nil, limit: 1000)
            defer { client.disconnect() }
            let big = dir + "/big.json"
            try Data(repeating: UInt8(ascii: "x"), count: 100_000).write(to: URL(fileURLWithPath: big))
            try publish(broker, file: big)
            try publish(broker, message: #"{"after":1}"#)
            #expect(waitUntil(timeout: 20) { received.messages.contains { $0.payload == Data(#"{"after":1}"#.utf8) } })
            #expect(received.messages.allSatisfy { $0.payload.count <= 1000 })
            #expect(oversized.messages.map(\.topic) == ["owntracks/rob/pi"])
            #expect(oversized.messages.first?.payload == Data("100000".utf8))
        }
    }
}
