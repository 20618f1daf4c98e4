// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogMQTT
import GPSLogModel

/// One publishing connection to a broker, as an OwnTracks app keeps it: the last will (`_type: lwt`) set at
/// CONNECT, the card published (retained) on `.../info` at each connection (and Home Assistant's discovery config), and the client's thread reconnecting
/// by itself when the broker goes away. A persistent session (a fixed client id, clean session off) lets
/// libmosquitto and the broker finish the QoS 1 messages that were in flight when the connection broke.
public final class MQTTLink: @unchecked Sendable {
    // @unchecked: `failure` goes through `state`; the client is Sendable.
    /// What happened to the connection, for the caller's log.
    public enum Event: Sendable {
        case connected
        /// An attempt failed (the broker refused the CONNECT, a wrong password says so; cannot be reached; spoke no
        /// MQTT); `isRepeat` when the same failure was told since the last connection.
        case failed(ConnectionFailure)
        case lost
    }

    /// The broker, topic and credentials it publishes with.
    public let destination: MQTTDestination
    private let client: MQTTClient
    private let state = NSLock()
    private var failure: String?

    /// Sets the client up (credentials, TLS, will); connects nothing yet.
    /// - Parameters:
    ///   - destination: the broker, topic and credentials.
    ///   - oneShot: a client of its own with a clean session (`upload`), so that it does not take the place of a
    ///     recorder publishing for the same device (a broker drops the older of two connections with one id).
    ///   - onEvent: called on the client's thread at each change of the connection.
    /// - Throws: `MQTTSendError.library` with libmosquitto's words (a TLS file it cannot read, a client it cannot
    ///   make).
    public init(destination: MQTTDestination, oneShot: Bool = false, onEvent: (@Sendable (Event) -> Void)? = nil)
        throws
    {
        self.destination = destination
        do {
            // OwnTracks' apps use a fixed client id per device too; two recorders with one device-id take turns.
            let id =
                oneShot
                ? "gpslog-upload-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" : "gpslog-" + destination.userDevice
            client = try MQTTClient(clientID: id, cleanSession: oneShot)
            if let user = destination.username {
                try client.setCredentials(username: user, password: destination.password?.secret)
            }
            if destination.tls {
                try client.setTLS(
                    caFile: destination.caFile ?? "/etc/ssl/certs/ca-certificates.crt",
                    certificateFile: destination.certificateFile, keyFile: destination.keyFile)
            }
            try client.setWill(
                topic: destination.baseTopic,
                payload: Data(
                    OwnTracksWriter.lwtMessage(connectedAt: Timestamp(seconds: Date().timeIntervalSince1970))),
                qos: destination.qos)
            try client.setReconnectDelay(1, maximum: 30)
        } catch let error as MQTTError {
            throw MQTTSendError.library(error.errorDescription ?? "\(error)")
        }
        let card = destination.card.map {
            Data(OwnTracksWriter(trackerID: destination.trackerID).cardMessage(name: $0.name, face: $0.face))
        }
        let discovery = destination.homeAssistant.map {
            (topic: $0.configTopic(destination), payload: Data($0.configMessage(destination)))
        }
        let (topic, qos) = (destination.baseTopic + "/info", destination.qos)
        // `self` weakly: the client keeps this closure, and the link keeps the client.
        client.onConnection = { [weak self] code in
            guard let self else { return }
            switch code {
            case 0?:
                state.withLock { failure = nil }
                // Retained: a consumer that subscribes later still learns the name (as the apps publish it).
                if let card {
                    _ = try? client.publish(topic: topic, payload: card, qos: qos, retain: true, track: false)
                }
                // Retained too: Home Assistant reads discovery configs when it (re)starts.
                if let discovery {
                    _ = try? client.publish(
                        topic: discovery.topic, payload: discovery.payload, qos: qos, retain: true, track: false)
                }
                onEvent?(.connected)
            case _?:
                break  // a refusal: told by onFailure, with the wait before the next attempt
            case nil:
                onEvent?(.lost)
            }
        }
        client.onFailure = { [weak self] failure in
            guard let self else { return }
            state.withLock { self.failure = failure.summary }
            onEvent?(.failed(failure))
        }
    }

    /// Starts connecting in the background (the broker may be away; the client's thread keeps trying).
    public func start() throws {
        do { try client.connectInBackground(host: destination.host, port: destination.port) } catch let e as MQTTError {
            throw MQTTSendError.library(e.errorDescription ?? "\(e)")
        }
    }

    /// Connects now and waits for the broker's answer (`upload`): a refusal or an unreachable broker is an error.
    public func connect(timeout: Double) throws {
        do { try client.connect(host: destination.host, port: destination.port, timeout: timeout) } catch let e
            as MQTTError
        {
            var reason = e.errorDescription ?? "\(e)"
            // A failed TLS handshake reads as "Protocol error", or as no CONNACK when the broker ends the connection
            // after the handshake (a client certificate missing): say where to look.
            switch (e, destination.tls) {
            case (.refused, _): break
            case (_, true):
                reason +=
                    " (over TLS: check --ca-file, the CA that signed the broker's certificate, and "
                    + "--cert-file and --key-file when the broker asks for a client certificate)"
            case (.timedOut, false), (.failed, false):
                reason += " (a broker that takes only TLS on that port needs mqtts://)"
            default: break
            }
            throw MQTTSendError.notConnected(broker: destination.displayURL, reason: reason)
        }
    }

    /// True while connected.
    public var isConnected: Bool { client.isConnected }

    /// Why the last attempt to reach the broker failed (its refusal of the CONNECT, say), until a connection is
    /// made.
    public var lastFailure: String? { state.withLock { failure } }

    /// Publishes one message with the destination's QoS; returns its id.
    func publish(topic: String, payload: [UInt8], retain: Bool) throws -> Int32 {
        do {
            return try client.publish(topic: topic, payload: Data(payload), qos: destination.qos, retain: retain)
        } catch let e as MQTTError {
            throw MQTTSendError.library(e.errorDescription ?? "\(e)")
        }
    }

    /// Waits, without holding a thread, until the broker confirmed every message of `mids`; false after `timeout`,
    /// or at once when the connection is lost (the caller publishes them again from the database once it is back;
    /// libmosquitto may also finish them, so the broker can see a batch twice, never a gap).
    func confirmed(_ mids: [Int32], timeout: Double) async -> Bool {
        // Woken by the client's thread at the last PUBACK. The ids are forgotten however this ends: they come round
        // again after 65,535 messages.
        defer { client.forget(mids) }
        let done = await client.acknowledgements(
            of: mids, atLeast: mids.count, timeout: .milliseconds(Int64(timeout * 1000)))
        return done.count == Set(mids).count
    }

    /// Waits until at most `limit` of `mids` (in publishing order) await the broker's confirmation, dropping the
    /// confirmed ones from it: the in-flight window of a paced upload. False when nothing was confirmed for
    /// `timeout` seconds, or at once when the connection is lost.
    func settle(_ mids: inout [Int32], toAtMost limit: Int, timeout: Double) async -> Bool {
        while mids.count > limit {
            // Woken by the client's thread at the next PUBACK among them.
            let done = await client.acknowledgements(
                of: mids, atLeast: 1, timeout: .milliseconds(Int64(timeout * 1000)))
            guard !done.isEmpty else {
                client.forget(mids)
                return false
            }
            client.forget(done)
            mids.removeAll(where: done.contains)
        }
        return true
    }

    /// Waits, without holding a thread, until connected; false after `timeout`.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await client.waitUntilConnected(timeout: timeout)
    }

    /// Disconnects cleanly: no last will.
    public func close() { client.disconnect() }

    /// Drops the connection as a crash would (the broker publishes the last will); for tests and `kill -9` drills.
    public func drop() { client.dropWithoutDisconnect() }
}
