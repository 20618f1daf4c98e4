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
    public var password: String?
    /// TLS: the CA certificate that signs the broker's (`mqtts://`).
    public var caFile: String?

    public init(
        host: String, port: Int, topic: String = "owntracks/#", username: String? = nil, password: String? = nil,
        caFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.topic = topic
        self.username = username
        self.password = password
        self.caFile = caFile
    }
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

    /// Sets the client up and starts connecting (a bad TLS file or option fails here, before serving starts).
    init(subscription: MQTTSubscription, sink: ReceiverStore, logger: Logger) throws {
        self.sink = sink
        self.logger = logger
        (messages, feed) = AsyncStream<(String, Data)>.makeStream(bufferingPolicy: .bufferingNewest(100_000))
        client = try MQTTClient(clientID: "gpslog-serve-\(UUID().uuidString.prefix(8))")
        if let user = subscription.username {
            try client.setCredentials(username: user, password: subscription.password)
        }
        if let ca = subscription.caFile { try client.setTLS(caFile: ca) }
        try client.setReconnectDelay(1, maximum: 30)
        let (topic, feed) = (subscription.topic, feed)
        client.onMessage = { topic, payload, _ in feed.yield((topic, payload)) }
        client.onSubscribed = { logger.info("subscribed to \(topic.visible)") }
        client.onConnection = { [weak client] up in
            guard let client else { return }
            if up {
                logger.info("connected to the MQTT broker \(client.broker); subscribing to \(topic.visible)")
                do { try client.subscribe(topic) } catch { logger.error("\(error.localizedDescription)") }
            } else {
                logger.warning("lost the MQTT broker \(client.broker); reconnecting")
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
