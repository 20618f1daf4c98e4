// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogMQTT
import GPSLogModel
import GPSLogSystem
import Logging

/// Where `serve --mqtt` subscribes: the broker, the topic filter, and the credentials.
public struct MQTTSubscription: Sendable {
    /// The broker's host name or address.
    public var host: String
    /// The broker's TCP port.
    public var port: Int
    /// OwnTracks' topics: `owntracks/USER/DEVICE` (locations, lwt), with `/event`, `/waypoint`, `/info` below.
    public var topic: String
    /// The user name given to the broker; nil: none (the password is then not sent either).
    public var username: String?
    /// Printed, it shows `***`.
    public var password: SecretText?
    /// TLS: the CA certificate that signs the broker's (`mqtts://`).
    public var caFile: String?
    /// TLS: the client certificate and its key, for a broker that asks for one.
    public var certificateFile: String?
    /// TLS: the private key of `certificateFile`.
    public var keyFile: String?

    /// A subscription to `topic` (OwnTracks' topics by default); set `certificateFile` and `keyFile` afterwards.
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

/// What `serve --mqtt` does with an MQTT broker, as the OwnTracks Recorder does: subscribes, and stores what the
/// devices publish on `owntracks/USER/DEVICE` and below (locations and transitions in that device's session,
/// waypoints, cards and last wills per device; a message already stored is not stored twice). A broker that is away,
/// at the start or later, is reconnected by the client's thread, and the subscription made again on each connection.
final class MQTTFeed: Sendable {
    let sink: ReceiverStore
    /// With accounts, only the topics of devices that exist and are not revoked are stored.
    let authority: DeviceAuthority
    let logger: Logger
    private let client: MQTTClient
    private let messages: AsyncStream<(String, Data)>
    private let feed: AsyncStream<(String, Data)>.Continuation
    /// The largest message taken: OwnTracks' messages are a few hundred bytes.
    static let maxPayload = 64 << 10
    /// The largest card (on `.../info`): its face may be 256 KiB, base64.
    static let maxCardPayload = 384 << 10
    /// The largest MQTT packet announced to the broker: a card's payload, the longest topic, and headers.
    static let maxPacket = UInt32(maxCardPayload + 65_536 + 1024)
    /// Messages waiting for the database at most (a few MB of locations); beyond, the oldest go, and are counted.
    static let maxWaiting = 10_000
    /// Messages over `maxPayload` (cards) waiting at most: a flood of large cards must not fill the memory.
    static let maxLargeWaiting = 8
    private let dropped = EventCount()
    private let largeWaiting = LargeMessages(limit: MQTTFeed.maxLargeWaiting)

    /// The largest message taken on `topic`: a card's on a device's `.../info`.
    static func limit(topic: String) -> Int {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[3] == "info" ? maxCardPayload : maxPayload
    }

    /// Sets the client up and starts connecting (a bad TLS file or option fails here, before serving starts).
    init(subscription: MQTTSubscription, sink: ReceiverStore, authority: DeviceAuthority, logger: Logger) throws {
        self.sink = sink
        self.authority = authority
        self.logger = logger
        (messages, feed) = AsyncStream<(String, Data)>.makeStream(bufferingPolicy: .bufferingNewest(Self.maxWaiting))
        client = try MQTTClient(clientID: "gpslog-serve-\(UUID().uuidString.prefix(8))")
        if let user = subscription.username {
            try client.setCredentials(username: user, password: subscription.password?.secret)
        }
        if let ca = subscription.caFile {
            try client.setTLS(
                caFile: ca, certificateFile: subscription.certificateFile, keyFile: subscription.keyFile)
        }
        try client.setReconnectDelay(1, maximum: 30)
        // The broker sends nothing larger (MQTT v5's Maximum Packet Size): a 100 MB message never reaches memory.
        try client.setMaximumPacketSize(Self.maxPacket)
        let (topic, feed, dropped, large) = (subscription.topic, feed, dropped, largeWaiting)
        let broker = "\(subscription.host):\(subscription.port)"
        // A broker that ignores the maximum: refused by its size before it is copied.
        client.payloadLimit = { Self.limit(topic: $0) }
        client.onOversized = { topic, size in
            logger.warning(
                "skipped a \(size)-byte message on \(topic.visible): larger than \(Self.limit(topic: topic))")
        }
        client.onMessage = { topic, payload, _ in
            // Checked here, before it waits: a flood of large messages must not fill the memory.
            guard payload.count <= Self.maxPayload || large.take() else {
                logger.warning(
                    "skipped a \(payload.count)-byte message on \(topic.visible): \(Self.maxLargeWaiting) large ones wait already"
                )
                return
            }
            if case .dropped(let old) = feed.yield((topic, payload)) {
                if old.1.count > Self.maxPayload { large.release() }
                if dropped.add() {
                    logger.warning(
                        "the database falls behind the broker: older messages were dropped (\(dropped.total) so far)")
                }
            }
        }
        client.onSubscribed = { logger.info("subscribed to \(topic.visible)") }
        client.onFailure = { failure in
            // Tried again after 1 s doubling to 30 s; each kind of failure said once, then at debug level.
            let line = "the MQTT broker \(broker) \(failure.summary.visible); retrying in \(failure.retryText)"
            if failure.isRepeat { logger.debug("\(line)") } else { logger.warning("\(line)") }
        }
        client.onConnection = { [weak client] code in
            switch code {
            case 0?:
                logger.info("connected to the MQTT broker \(broker); subscribing to \(topic.visible)")
                do { try client?.subscribe(topic) } catch { logger.error("\(describeForPeople(error).visible)") }
            case _?:
                break  // a refusal: told by onFailure
            case nil:
                logger.warning("lost the MQTT broker \(broker); reconnecting")
            }
        }
        try client.connectInBackground(host: subscription.host, port: subscription.port)
    }

    /// Stores what arrives until `stop`; one consumer, so each device's messages are stored in the order they came.
    func run() async {
        for await (topic, payload) in messages {
            await store(topic: topic, payload: payload)
            if payload.count > Self.maxPayload { largeWaiting.release() }
        }
    }

    /// Disconnects and ends `run`.
    func stop() {
        client.disconnect()
        feed.finish()
    }

    /// Stores one message of `PREFIX/USER/DEVICE` or a topic below it, by its `_type`: a location or a transition in
    /// the device's session, waypoints, a card or a last will in the device's records. Other types (status, cmd,
    /// steps...) are skipped with a debug line; a malformed message is logged, naming the topic and the field, and
    /// skipped.
    func store(topic: String, payload: Data) async {
        guard let device = OwnTracksTopic.device(topic) else {
            logger.debug("skipped a message on \(topic.visible): not a device's topic (owntracks/USER/DEVICE)")
            return
        }
        guard await authority.allowsTopicDevice(device) else { return }
        guard payload.count <= Self.limit(topic: topic) else {
            logger.warning(
                "skipped a \(payload.count)-byte message on \(topic.visible): larger than \(Self.limit(topic: topic))")
            return
        }
        do {
            let message = try OwnTracksMessage.received(payload, source: "MQTT topic \(topic)")
            guard let words = try await sink.storeOwnTracks(message, device: device) else {
                if case .other(let type) = message {
                    logger.debug("skipped an OwnTracks \(type.visible) message on \(topic.visible): not stored")
                }
                return
            }
            logger.debug("\(words) (MQTT \(topic.visible))")
        } catch let error as ImportError {
            logger.warning("skipped a message on \(topic.visible): \(describeForPeople(error).visible)")
        } catch {
            logger.error("cannot store a message on \(topic.visible): \(describeForPeople(error).visible)")
        }
    }
}

/// `USER/DEVICE` from an OwnTracks topic.
enum OwnTracksTopic {
    /// `USER/DEVICE` of `PREFIX/USER/DEVICE` (a device's own topic: locations, lwt) or of a topic below it
    /// (`/event`, `/waypoint`, `/waypoints`, `/info`...); nil for a shorter topic or one with an empty level.
    static func device(_ topic: String) -> String? {
        let parts = topic.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[..<3].allSatisfy({ !$0.isEmpty }) else { return nil }
        return parts[1] + "/" + parts[2]
    }
}

/// How many large messages wait, on any thread: at most `limit`.
final class LargeMessages: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var count = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Counts one more, unless `limit` wait already (then false).
    func take() -> Bool {
        lock.withLock {
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// One has been stored or dropped.
    func release() { lock.withLock { count = max(0, count - 1) } }
}
