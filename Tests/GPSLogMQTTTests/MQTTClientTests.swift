// SPDX-License-Identifier: MIT
import Foundation
import GPSLogMQTT
import GPSLogTestSupport
import Testing

/// The libmosquitto wrapper against a real Mosquitto broker on loopback, with `mosquitto_sub` and `mosquitto_pub`
/// as the peers.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct MQTTClientTests {
    @Test func aRetainedQoS1MessageIsAcknowledgedAndReachesASubscriber() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let client = try MQTTClient(clientID: "gpslog-test")
            try client.connect(host: "127.0.0.1", port: broker.port)
            #expect(client.isConnected)
            let payload = #"{"_type":"location","lat":52.1,"lon":5.1,"tst":1709283789,"tid":"pi"}"#
            let mid = try client.publish(
                topic: "owntracks/rob/pi", payload: Data(payload.utf8), qos: 1, retain: true)
            #expect(client.waitForAcknowledgements([mid], timeout: 10), "\(broker.logText)")
            // A subscriber that comes later gets the retained location, as Home Assistant does.
            let sub = try runMosquittoClient(
                "mosquitto_sub",
                ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/#", "-C", "1", "-W", "10"])
            #expect(sub.status == 0 && sub.output == payload + "\n", "\(sub.output)")
            client.disconnect()
            #expect(!client.isConnected)
        }
    }

    @Test func aSubscriptionDeliversWhatAPeerPublishes() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let client = try MQTTClient(clientID: nil)
            let received = Received()
            client.onMessage = { topic, payload, _ in received.add(topic, payload) }
            try client.connect(host: "127.0.0.1", port: broker.port)
            try client.subscribe("owntracks/#")
            // The subscription is set up asynchronously: publish until one arrives.
            #expect(
                try waitUntil(timeout: 10) {
                    _ = try runMosquittoClient(
                        "mosquitto_pub",
                        [
                            "-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/jane/phone", "-q", "1", "-m",
                            "{}",
                        ])
                    return !received.messages.isEmpty
                })
            #expect(received.messages.first?.topic == "owntracks/jane/phone")
            #expect(received.messages.first?.payload == Data("{}".utf8))
        }
    }

    @Test func aWrongPasswordIsRefusedInTheBrokersWordsWithoutThePassword() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir, user: "pi", password: "right-horse-battery")
            let wrong = try MQTTClient(clientID: nil)
            try wrong.setCredentials(username: "pi", password: "staple-wrong-9f3a")
            do {
                try wrong.connect(host: "127.0.0.1", port: broker.port)
                Issue.record("a wrong password connected")
            } catch let error as MQTTError {
                let text = error.localizedDescription
                #expect(text.contains("refused the connection") && text.contains("not authori"), "\(text)")
                #expect(!text.contains("staple-wrong-9f3a") && !text.contains("right-horse-battery"))
            }
            let right = try MQTTClient(clientID: nil)
            try right.setCredentials(username: "pi", password: "right-horse-battery")
            try right.connect(host: "127.0.0.1", port: broker.port)
            #expect(right.isConnected)
        }
    }

    /// A process with more than 1024 descriptors open (serve with many clients) gives the broker's socket a number
    /// past FD_SETSIZE: libmosquitto's own loop (pselect on an fd_set) aborted the whole process there.
    @Test func socketsNumberedPastFDSetSizeWork() throws {
        let filler = (0..<1100).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { filler.filter { $0 >= 0 }.forEach { close($0) } }
        #expect(filler.allSatisfy { $0 >= 0 } && filler.max()! >= 1024)
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let client = try MQTTClient(clientID: "gpslog-many-fds")
            let received = Received()
            client.onMessage = { topic, payload, _ in received.add(topic, payload) }
            try client.connect(host: "127.0.0.1", port: broker.port)
            try client.subscribe("owntracks/#")
            // Its own messages come back through the subscription once it is set up.
            var acknowledged = true
            let arrived = try waitUntil(timeout: 10) {
                let mid = try client.publish(topic: "owntracks/rob/pi", payload: Data("{}".utf8), qos: 1)
                acknowledged = acknowledged && client.waitForAcknowledgements([mid], timeout: 10)
                return !received.messages.isEmpty
            }
            #expect(arrived && acknowledged)
            #expect(received.messages.first?.topic == "owntracks/rob/pi")
            client.disconnect()
            #expect(!client.isConnected)
        }
    }

    @Test func aLostConnectionPublishesTheLastWill() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let watcher = try MQTTClient(clientID: "watcher")
            let received = Received()
            watcher.onMessage = { topic, payload, _ in received.add(topic, payload) }
            try watcher.connect(host: "127.0.0.1", port: broker.port)
            try watcher.subscribe("owntracks/rob/pi")
            var client: MQTTClient? = try MQTTClient(clientID: "pi")
            let will = #"{"_type":"lwt","tst":1709283789}"#
            try client!.setWill(topic: "owntracks/rob/pi", payload: Data(will.utf8))
            try client!.connect(host: "127.0.0.1", port: broker.port, keepalive: 5)
            // Without DISCONNECT: the keepalive runs out and the broker publishes the will.
            client!.dropWithoutDisconnect()
            client = nil
            #expect(waitUntil(timeout: 20) { received.messages.contains { $0.payload == Data(will.utf8) } })
        }
    }
}

/// Messages gathered on libmosquitto's thread.
final class Received: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var list: [(topic: String, payload: Data)] = []
    func add(_ topic: String, _ payload: Data) { lock.withLock { list.append((topic, payload)) } }
    var messages: [(topic: String, payload: Data)] { lock.withLock { list } }
}
