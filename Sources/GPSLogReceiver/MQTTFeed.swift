// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogMQTT
import GPSLogModel
import Logging

/// Where `serve --mqtt` subscribes: the broker, the topic filter, and the credentials.
public struct MQTTSubscription: Sendable {
    public var host: String
    public var port: Int
    /// OwnTracks' topics: `owntracks/USER/DEVICE` (locations, lwt), with `/event`, `/waypoint`, `/info` below.
    public var topic: String
    public var username: String?
    /// Printed, it shows `***`.
    public var password: SecretText?
    /// TLS: the CA certificate that signs the broker's (`mqtts://`).
    public var caFile: String?

    public init(
        host: String, port: Int, topic: String = "owntracks/#", username: String? = nil, password: SecretText? = nil,
        caFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.topic = topic
        self.username = username
        self.password = password
        self.caFile = caFile
    }

    /// True when `filter` is a topic filter a broker takes (`owntracks/#`, `owntracks/+/+`).
    public static func isValidTopicFilter(_ filter: String) -> Bool { MQTTClient.isValidFilter(filter) }
}

/// What `serve --mqtt` does with an MQTT broker, as the OwnTracks Recorder does: subscribes, and stores each
/// location of `owntracks/USER/DEVICE` in that device's session (a location already stored, same device and time,
/// is not stored twice). A broker that is away, at the start or later, is reconnected by libmosquitto, and the
/// subscription made again on each connection.
final class MQTTFeed: Sendable {
    let sink: ReceiverStore
    let logger: Logger
    private let client: MQTTClient
    private let messages: AsyncStream<(String, Data)>
    private let feed: AsyncStream<(String, Data)>.Continuation
    /// The largest message taken: OwnTracks' messages are a few hundred bytes.
    static let maxPayload = 64 << 10
    /// Messages waiting for the database at most (a few MB of locations); beyond, the oldest go, and are counted.
    static let maxWaiting = 10_000
    private let dropped = DroppedCount()

    /// Sets the client up and starts connecting (a bad TLS file or option fails here, before serving starts).
    init(subscription: MQTTSubscription, sink: ReceiverStore, logger: Logger) throws {
        self.sink = sink
        self.logger = logger
        (messages, feed) = AsyncStream<(String, Data)>.makeStream(bufferingPolicy: .bufferingNewest(Self.maxWaiting))
        client = try MQTTClient(clientID: "gpslog-serve-\(UUID().uuidString.prefix(8))")
        if let user = subscription.username {
            try client.setCredentials(username: user, password: subscription.password?.secret)
        }
        if let ca = subscription.caFile { try client.setTLS(caFile: ca) }
        try client.setReconnectDelay(1, maximum: 30)
        let (topic, feed, dropped) = (subscription.topic, feed, dropped)
        let broker = "\(subscription.host):\(subscription.port)"
        client.onMessage = { topic, payload, _ in
            // Checked here, before it waits: a flood of large messages must not fill the memory.
            guard payload.count <= Self.maxPayload else {
                logger.warning(
                    "skipped a \(payload.count)-byte message on \(topic.visible): larger than \(Self.maxPayload)")
                return
            }
            if case .dropped = feed.yield((topic, payload)), dropped.add() {
                logger.warning(
                    "the database falls behind the broker: older messages were dropped (\(dropped.total) so far)")
            }
        }
        client.onSubscribed = { logger.info("subscribed to \(topic.visible)") }
        let refusals = DroppedCount()
        client.onConnection = { [weak client] code in
            switch code {
            case 0?:
                logger.info("connected to the MQTT broker \(broker); subscribing to \(topic.visible)")
                do { try client?.subscribe(topic) } catch { logger.error("\(error.localizedDescription.visible)") }
            case let code?:
                // libmosquitto tries again (1 s doubling to 30 s); the reason is said once, then every hundredth time.
                if refusals.add(every: 100) {
                    logger.error(
                        "the MQTT broker \(broker) refused the connection: \(MQTTClient.refusal(code)); retrying")
                }
            case nil:
                logger.warning("lost the MQTT broker \(broker); reconnecting")
            }
        }
        try client.connectInBackground(host: subscription.host, port: subscription.port)
    }

    /// Stores what arrives until `stop`; one consumer, so each device's messages are stored in the order they came.
    func run() async {
        for await (topic, payload) in messages { await store(topic: topic, payload: payload) }
    }

    /// Disconnects and ends `run`.
    func stop() {
        client.disconnect()
        feed.finish()
    }

    /// Stores one message: a location on `owntracks/USER/DEVICE`; other types and sub-topics are not stored yet.
    func store(topic: String, payload: Data) async {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return }
        let device = parts[1...].joined(separator: "/")
        guard payload.count <= Self.maxPayload else {
            logger.warning(
                "skipped a \(payload.count)-byte message on \(topic.visible): larger than \(Self.maxPayload)")
            return
        }
        do {
            guard let location = try OwnTracksMessage.location(payload, source: "MQTT topic \(topic)", line: 1) else {
                return  // lwt, card, status...: nothing to store
            }
            let stored = try await sink.storeOwnTracks(location, device: device)
            logger.info(
                "stored \(stored.stored) OwnTracks location from MQTT in '\(stored.session.visible)'\(stored.duplicates > 0 ? " (already there)" : "")"
            )
        } catch {
            logger.warning("skipped a message on \(topic.visible): \(error.localizedDescription.visible)")
        }
    }
}

/// Counts events on any thread, and says when one should be logged: the first, then every `every`-th.
final class DroppedCount: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var count = 0
    var total: Int { lock.withLock { count } }

    /// Counts one; true for the first and then every `every`-th.
    func add(every: Int = 1000) -> Bool {
        lock.withLock {
            count += 1
            return count == 1 || count % every == 0
        }
    }
}
