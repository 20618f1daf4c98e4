// SPDX-License-Identifier: MIT
import Foundation
import GPSLogMQTT
import GPSLogTestSupport
import Testing

/// `onDelivery` against a real Mosquitto broker: a QoS 1 message is acknowledged only when the handler kept it; one
/// it did not keep comes again on the next connection of the same persistent session (MQTT v5, a session expiry).
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct MQTTDeliveryTests {
    static func subscriber(_ received: Received, keep: @escaping @Sendable (Int) -> Bool) throws -> MQTTClient {
        let client = try MQTTClient(clientID: "gpslog-delivery", cleanSession: false)
        try client.setSessionExpiry(600)
        try client.setReconnectDelay(1, maximum: 1)
        client.onDelivery = { topic, payload, _ in
            received.add(topic, payload)
            return keep(received.messages.count)
        }
        return client
    }

    static func publish(_ broker: MosquittoBroker, _ message: String) throws {
        let r = try runMosquittoClient(
            "mosquitto_pub",
            ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/a/b", "-q", "1", "-m", message])
        #expect(r.status == 0, "\(r.output)")
    }

    @Test func aMessageNotKeptComesAgainAndOneKeptDoesNot() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let received = Received()
            // The first delivery is not kept (a database that cannot write): the connection is shut without its
            // PUBACK, and the client's own reconnect gets it again from the broker.
            let client = try Self.subscriber(received) { $0 >= 2 }
            try client.connect(host: "127.0.0.1", port: broker.port)
            try client.subscribe("owntracks/#", qos: 1)
            #expect(waitUntil(timeout: 10) { broker.logText.contains("SUBACK to gpslog-delivery") })
            try Self.publish(broker, "one")
            #expect(waitUntil(timeout: 20) { received.messages.count == 2 }, "\(broker.logText)")
            #expect(received.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["one", "one"])
            client.disconnect()

            // Kept the second time, so acknowledged: the same session, connected again, gets only what is new.
            let later = Received()
            let again = try Self.subscriber(later) { _ in true }
            try again.connect(host: "127.0.0.1", port: broker.port)
            try Self.publish(broker, "two")
            #expect(waitUntil(timeout: 20) { !later.messages.isEmpty }, "\(broker.logText)")
            // The broker delivers in order: a redelivered "one" would come before "two".
            #expect(later.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["two"])
            again.disconnect()
        }
    }

    @Test func whatComesWhileASessionIsAwayIsDeliveredWhenItReturns() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let first = Received()
            let client = try Self.subscriber(first) { _ in true }
            try client.connect(host: "127.0.0.1", port: broker.port)
            try client.subscribe("owntracks/#", qos: 1)
            #expect(waitUntil(timeout: 10) { broker.logText.contains("SUBACK to gpslog-delivery") })
            client.disconnect()
            // The session outlives the DISCONNECT (MQTT v5 ends it at once without a session expiry).
            for n in 1...3 { try Self.publish(broker, "away \(n)") }
            let later = Received()
            let again = try Self.subscriber(later) { _ in true }
            try again.connect(host: "127.0.0.1", port: broker.port)
            #expect(waitUntil(timeout: 20) { later.messages.count == 3 }, "\(broker.logText)")
            #expect(
                later.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["away 1", "away 2", "away 3"])
            again.disconnect()
        }
    }
}
