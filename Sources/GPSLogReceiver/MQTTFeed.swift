// SPDX-License-Identifier: MIT
import Crypto
import Foundation
import GPSLogFormats
import GPSLogMQTT
import GPSLogModel
import GPSLogStore
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
    /// The MQTT client id, the same at every start, so that the broker keeps the session (and the messages that
    /// come for it) while `serve` is away; nil: a random one, and nothing is kept (`defaultClientID` makes one).
    public var clientID: String?

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

    /// `gpslog-serve-` and ten hex digits of a hash of this machine's name and the database: the same at every start
    /// of one `serve`, another for a `serve` of another database or machine on the same broker (a broker drops the
    /// older of two connections with one id). 23 characters, the most every MQTT 3.1.1 broker takes.
    public static func defaultClientID(database: String) -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(cString: name) : ""
        let digest = SHA256.hash(data: Array((host + "\n" + database).utf8))
        return "gpslog-serve-" + digest.prefix(5).map { String(format: "%02x", $0) }.joined()
    }

    /// True when `id` is a client id to give a broker: 1 to 23 letters, digits, `-` or `_` (what every MQTT 3.1.1
    /// broker must take; others may refuse the rest).
    public static func isValidClientID(_ id: String) -> Bool {
        (1...23).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// True when `filter` is a topic filter a broker takes (`owntracks/#`, `owntracks/+/+`).
    public static func isValidTopicFilter(_ filter: String) -> Bool { MQTTClient.isValidFilter(filter) }
}

/// What `serve --mqtt` does with an MQTT broker, as the OwnTracks Recorder does: subscribes, and stores what the
/// devices publish on `owntracks/USER/DEVICE` and below (locations and transitions in that device's session,
/// waypoints, cards and last wills per device; a message already stored is not stored twice). A broker that is away,
/// at the start or later, is reconnected by the client's thread, and the subscription made again on each connection.
///
/// Nothing the broker handed over is lost: a message is acknowledged (PUBACK) only once it is committed
/// (`MQTTClient.onDelivery`), and the session is persistent (a fixed client id, clean session off, kept by the broker
/// for `sessionExpiry`), so what comes while `serve` is stopped, killed, or cannot write (a full disk, a lock held
/// too long) waits at the broker and comes again. A message that cannot be stored is tried again, holding the rest
/// back at the broker, until it is stored or `serve` stops.
final class MQTTFeed: Sendable {
    let sink: ReceiverStore
    /// With accounts, only the topics of devices that exist and are not revoked are stored.
    let authority: DeviceAuthority
    let logger: Logger
    private let client: MQTTClient
    private let stopping = StopSignal()
    /// The largest message taken: OwnTracks' messages are a few hundred bytes.
    static let maxPayload = 64 << 10
    /// The largest card (on `.../info`): its face may be 256 KiB, base64.
    static let maxCardPayload = 384 << 10
    /// The largest MQTT packet announced to the broker: a card's payload, the longest topic, and headers.
    static let maxPacket = UInt32(maxCardPayload + 65_536 + 1024)
    /// How long the broker keeps the session (and the messages for it) while `serve` is away: 30 days.
    static let sessionExpiry: UInt32 = 30 * 86_400
    /// The wait before trying a message again that could not be stored: from 1 s, doubling to 30 s.
    static let retryDelays = (first: 1.0, maximum: 30.0)

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
        client = try MQTTClient(clientID: subscription.clientID, cleanSession: false)
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
        try client.setSessionExpiry(Self.sessionExpiry)
        let topic = subscription.topic
        let broker = "\(subscription.host):\(subscription.port)"
        // A broker that ignores the maximum: refused by its size before it is copied.
        client.payloadLimit = { Self.limit(topic: $0) }
        client.onOversized = { topic, size in
            logger.warning(
                "skipped a \(size)-byte message on \(topic.visible): larger than \(Self.limit(topic: topic))")
        }
        // Weakly: the client keeps this closure, and the feed keeps the client.
        client.onDelivery = { [weak self] topic, payload, _ in self?.keep(topic: topic, payload: payload) ?? false }
        client.onSubscribed = { logger.info("subscribed to \(topic.visible)") }
        client.onFailure = { failure in
            // Tried again after 1 s doubling to 30 s; each kind of failure said once, then at debug level.
            let line = "the MQTT broker \(broker) \(failure.summary.visible); retrying in \(failure.retryText)"
            if failure.isRepeat { logger.debug("\(line)") } else { logger.warning("\(line)") }
        }
        let stopping = stopping
        client.onConnection = { [weak client] code in
            switch code {
            case 0?:
                logger.info("connected to the MQTT broker \(broker); subscribing to \(topic.visible)")
                do { try client?.subscribe(topic) } catch { logger.error("\(describeForPeople(error).visible)") }
            case _?:
                break  // a refusal: told by onFailure
            case nil:
                // A message not stored at a stop shuts the connection itself: said by `keep`.
                if !stopping.isSet { logger.warning("lost the MQTT broker \(broker); reconnecting") }
            }
        }
        try client.connectInBackground(host: subscription.host, port: subscription.port)
    }

    /// Disconnects once the message in hand is stored (or, failing, left to the broker); the session stays at the
    /// broker, which keeps what comes meanwhile.
    func stop() async {
        stopping.set()
        // The client's thread may wait for a store that runs on the cooperative pool: joined off it.
        let client = client
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                client.disconnect()
                done.resume()
            }
        }
    }

    /// On the client's thread, for each message: true once it is stored or skipped for good (malformed, too large,
    /// not a device's topic, a device without a right to write); until then it is tried again, from 1 s to every
    /// 30 s, the broker holding the rest back; false only when `serve` stops first (then the broker keeps it).
    private func keep(topic: String, payload: Data) -> Bool {
        var delay = Self.retryDelays.first
        var tries = 0
        while true {
            tries += 1
            let outcome = Blocking.wait { await self.store(topic: topic, payload: payload) }
            guard case .failed(let error) = outcome else {
                if tries > 1 { logger.notice("stored the message on \(topic.visible) at try \(tries)") }
                return true
            }
            let words = describeForPeople(error).visible
            if stopping.isSet {
                let line =
                    "cannot store a message on \(topic.visible) (\(words)) and serve stops: not acknowledged, so "
                    + "the broker keeps it (and what came after) for the next start"
                logger.error("\(line)")
                return false
            }
            let line =
                "cannot store a message on \(topic.visible): \(words); not acknowledged: the broker holds it and "
                + "what comes after; trying again in \(Int(delay)) s"
            if tries == 1 { logger.error("\(line)") } else { logger.debug("\(line)") }
            stopping.wait(seconds: delay)
            delay = min(delay * 2, Self.retryDelays.maximum)
        }
    }

    /// What became of one message.
    enum Outcome {
        /// Stored, or skipped for good (logged).
        case done
        /// The database could not take it now: tried again.
        case failed(any Error)
    }

    /// Stores one message of `PREFIX/USER/DEVICE` or a topic below it, by its `_type`: a location or a transition in
    /// the device's session, waypoints, a card or a last will in the device's records. Other types (status, cmd,
    /// steps...) are skipped with a debug line; a malformed message is logged, naming the topic and the field, and
    /// skipped.
    func store(topic: String, payload: Data) async -> Outcome {
        guard let device = OwnTracksTopic.device(topic) else {
            logger.debug("skipped a message on \(topic.visible): not a device's topic (owntracks/USER/DEVICE)")
            return .done
        }
        guard await authority.allowsTopicDevice(device) else { return .done }
        guard payload.count <= Self.limit(topic: topic) else {
            logger.warning(
                "skipped a \(payload.count)-byte message on \(topic.visible): larger than \(Self.limit(topic: topic))")
            return .done
        }
        do {
            let message = try OwnTracksMessage.received(payload, source: "MQTT topic \(topic)")
            guard let words = try await sink.storeOwnTracks(message, device: device) else {
                if case .other(let type) = message {
                    logger.debug("skipped an OwnTracks \(type.visible) message on \(topic.visible): not stored")
                }
                return .done
            }
            logger.debug("\(words) (MQTT \(topic.visible))")
            return .done
        } catch let error as ImportError {
            logger.warning("skipped a message on \(topic.visible): \(describeForPeople(error).visible)")
            return .done
        } catch let error as StoreError where error.isAboutTheData {
            // It would fail the same way at every try, holding every device's messages back.
            logger.error("skipped a message on \(topic.visible): \(describeForPeople(error).visible)")
            return .done
        } catch {
            return .failed(error)
        }
    }
}

/// Set once, when `serve` stops; a wait on it ends then.
final class StopSignal: @unchecked Sendable {
    // @unchecked: every access goes through `condition`.
    private let condition = NSCondition()
    private var raised = false

    var isSet: Bool { condition.withLock { raised } }

    func set() {
        condition.withLock {
            raised = true
            condition.broadcast()
        }
    }

    /// Waits `seconds`, or less when set meanwhile.
    func wait(seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.withLock {
            while !raised && condition.wait(until: deadline) {}
        }
    }
}

/// Runs async work from a thread that is not the cooperative pool's (the MQTT client's) and waits for it.
enum Blocking {
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = ResultBox<T>()
        Task { result.put(await work()) }
        return result.take()
    }
}

/// One value handed from a task to a waiting thread.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: every access goes through `condition`.
    private let condition = NSCondition()
    private var value: T?

    func put(_ v: T) {
        condition.withLock {
            value = v
            condition.signal()
        }
    }

    func take() -> T {
        condition.withLock {
            while value == nil { condition.wait() }
            return value!
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
