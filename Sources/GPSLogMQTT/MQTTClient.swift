// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// One connection to an MQTT broker through libmosquitto: owns the `mosquitto *` (freed once the client is let go)
/// and a thread of its own that makes every libmosquitto call on it (`MQTTConnection+Loop.swift`), and reports the
/// broker's answers: the CONNACK, each PUBACK of a QoS 1 message by its id, and the messages of subscriptions.
///
/// Calls from other threads (`publish`, `subscribe`, `disconnect`) are handed to that thread, which wakes at once;
/// the callbacks (`onMessage`, `onConnection`...) run on it. Set them, and the options, before connecting.
///
/// The thread reconnects after a connection is lost (with `setReconnectDelay`'s backoff), and libmosquitto resends
/// QoS 1 messages that were not acknowledged; `isConnected` says where it stands. Letting the client go disconnects
/// and waits for its thread.
public final class MQTTClient: @unchecked Sendable {
    // @unchecked: everything goes through `connection`, which hands work to its thread.
    let connection: MQTTConnection
    /// Called on the client's thread for each message of a subscription: topic, payload, retained. The broker's
    /// QoS 1 message is acknowledged (PUBACK) once this returns, whatever became of it: see `onDelivery`.
    public var onMessage: (@Sendable (String, Data, Bool) -> Void)? {
        get { connection.onMessage }
        set { connection.onMessage = newValue }
    }
    /// In place of `onMessage`, for a subscriber that must not lose what the broker handed over: called on the
    /// client's thread for each message (topic, payload, retained), it returns true once the message is kept (in a
    /// database, committed). Only then is a QoS 1 message acknowledged: its PUBACK, queued by libmosquitto before this
    /// is called (libmosquitto 2.0 has no manual acknowledgement), is written by the client's thread after this
    /// returns. False: the connection is shut at once, so that this PUBACK never goes out, and the next connection
    /// gets the message again from the broker (with a persistent session: `cleanSession` false). The client's thread
    /// reads nothing more while this runs, so a slow store holds the broker back instead of filling the memory.
    public var onDelivery: (@Sendable (String, Data, Bool) -> Bool)? {
        get { connection.onDelivery }
        set { connection.onDelivery = newValue }
    }
    /// Called on the client's thread when a connection is made (0), refused by the broker (its CONNACK code: see
    /// `refusal`), or lost (nil).
    public var onConnection: (@Sendable (Int32?) -> Void)? {
        get { connection.onConnection }
        set { connection.onConnection = newValue }
    }
    /// Called on the client's thread when the broker confirmed a subscription (SUBACK).
    public var onSubscribed: (@Sendable () -> Void)? {
        get { connection.onSubscribed }
        set { connection.onSubscribed = newValue }
    }
    /// Called on the client's thread for each failed attempt to reach the broker (a TCP connection refused, the
    /// session refused, an answer that is not MQTT), with the wait before the next one; `isRepeat` when the same
    /// failure was reported since the last connection (log it once loudly, then quietly).
    public var onFailure: (@Sendable (ConnectionFailure) -> Void)? {
        get { connection.onFailure }
        set { connection.onFailure = newValue }
    }
    /// The largest payload taken on a topic: a message over it goes to `onOversized` (topic, size), never copied.
    public var payloadLimit: (@Sendable (String) -> Int)? {
        get { connection.payloadLimit }
        set { connection.payloadLimit = newValue }
    }
    /// Called on the client's thread for a message over `payloadLimit`, with its topic and size in bytes.
    public var onOversized: (@Sendable (String, Int) -> Void)? {
        get { connection.onOversized }
        set { connection.onOversized = newValue }
    }
    /// Where it connects, for messages.
    public var broker: String { connection.broker }

    /// A client with this id (nil: libmosquitto makes one; a persistent session needs a fixed id).
    /// - Parameters:
    ///   - clientID: the MQTT client id; nil lets libmosquitto make a random one.
    ///   - cleanSession: false keeps the broker's session (subscriptions, queued QoS 1 messages) across
    ///     connections.
    /// - Throws: `MQTTError.library` when libmosquitto cannot make the client or its wake-up pipe cannot be made.
    public init(clientID: String?, cleanSession: Bool = true) throws {
        connection = try MQTTConnection(clientID: clientID, cleanSession: cleanSession)
    }

    deinit {
        // A DISCONNECT, and the thread waited for (unless this is its own last reference, let go in a callback:
        // then it ends after that turn, and frees the handle itself).
        connection.stop(drop: false)
    }

    /// The user name and password sent at CONNECT (the password never leaves this call in any message).
    public func setCredentials(username: String, password: String?) throws {
        let c = connection
        try c.perform("setting the user name") {
            try MQTTError.check(mosquitto_username_pw_set(c.handle, username, password), "setting the user name")
        }
    }

    /// TLS with the CA certificate file that signs the broker's, and a client certificate and key when given.
    public func setTLS(caFile: String, certificateFile: String? = nil, keyFile: String? = nil) throws {
        let c = connection
        try c.perform("setting up TLS with \(caFile)") {
            try MQTTError.check(
                mosquitto_tls_set(c.handle, caFile, nil, certificateFile, keyFile, nil),
                "setting up TLS with \(caFile)")
        }
    }

    /// The message the broker publishes for us when the connection drops without a DISCONNECT (OwnTracks' lwt).
    public func setWill(topic: String, payload: Data, qos: Int32 = 1, retain: Bool = false) throws {
        let c = connection
        try c.perform("setting the last will on \(topic)") {
            try payload.withUnsafeBytes { bytes in
                try MQTTError.check(
                    mosquitto_will_set(c.handle, topic, Int32(bytes.count), bytes.baseAddress, qos, retain),
                    "setting the last will on \(topic)")
            }
        }
    }

    /// How long the client's thread waits before trying again after any failure: from `delay` seconds, doubling to
    /// `maximum` (`ReconnectBackoff`). Before connecting.
    public func setReconnectDelay(_ delay: UInt32, maximum: UInt32) throws {
        let c = connection
        try c.perform("setting the reconnect delay") {
            try MQTTError.check(
                mosquitto_reconnect_delay_set(c.handle, delay, maximum, true), "setting the reconnect delay")
            c.reconnectDelay = (.seconds(max(1, delay)), .seconds(max(delay, maximum)))
        }
    }

    /// Speaks MQTT v5 and announces at every CONNECT that no packet over `bytes` may come (Maximum Packet Size): the
    /// broker drops a larger message for this client instead of sending it, so that it never reaches the memory.
    /// Before connecting.
    public func setMaximumPacketSize(_ bytes: UInt32) throws {
        let c = connection
        try c.perform("setting the maximum packet size") {
            c.maximumPacketSize = bytes
            try c.speakMQTT5()
        }
    }

    /// Speaks MQTT v5 and asks the broker to keep this client's session (its subscriptions and the QoS 1 messages
    /// that come for it) for `seconds` after a connection ends, however it ends: a persistent session, with
    /// `cleanSession` false and a fixed client id (MQTT 3.1.1 keeps one with no end; v5 ends it at once unless told).
    /// Before connecting.
    public func setSessionExpiry(_ seconds: UInt32) throws {
        let c = connection
        try c.perform("setting the session expiry") {
            c.sessionExpiry = seconds
            try c.speakMQTT5()
        }
    }

    /// Connects (the TCP and TLS handshakes happen on the client's thread) and waits for the broker's CONNACK.
    /// - Throws: `MQTTError.refused` with the broker's reason, `.failed` (an answer that is not MQTT), `.timedOut`,
    ///   or the library's error.
    public func connect(host: String, port: Int, keepalive: Int32 = 60, timeout: Double = 10) throws {
        try start(host: host, port: port, keepalive: keepalive, blocking: true)
        let c = connection
        // The first answer of the thread ends the wait: the CONNACK, or a failure (an answer that is not MQTT).
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        let (code, error) = c.shared.withLock {
            while c.connack != 0 && c.connectError == nil && c.running && c.shared.wait(until: deadline) {}
            return (c.connack, c.connectError)
        }
        guard code == 0 else {
            // The thread must not outlive a failed connect.
            disconnect()
            throw error ?? MQTTError.timedOut(operation: "CONNECT", seconds: timeout)
        }
    }

    /// Starts connecting and returns at once: the client's thread connects, and reconnects whenever the broker is
    /// away (at the start too), with `setReconnectDelay`'s backoff, for as long as the client runs; `onConnection`
    /// reports each change.
    public func connectInBackground(host: String, port: Int, keepalive: Int32 = 60) throws {
        try start(host: host, port: port, keepalive: keepalive, blocking: false)
    }

    /// Starts the client's thread, which connects first.
    private func start(host: String, port: Int, keepalive: Int32, blocking: Bool) throws {
        let c = connection
        try c.perform("connecting to \(host):\(port)") {
            // External loop: libmosquitto queues what is sent; the thread writes it.
            try MQTTError.check(mosquitto_threaded_set(c.handle, true), "marking the client as threaded")
            c.target = (host, port, keepalive)
            c.blocking = blocking
        }
        try c.start()
    }

    /// The broker's reason for a CONNACK code of MQTT 3.1.1, in libmosquitto's words.
    public static func refusal(_ code: Int32) -> String { String(cString: mosquitto_connack_string(code)) }

    /// Failed attempts to reach the broker so far (each told to `onFailure`).
    public var failedAttempts: Int { connection.shared.withLock { connection.failures } }

    /// True while connected to the broker.
    public var isConnected: Bool { connection.shared.withLock { connection.connected } }

    /// Waits, without holding a thread, until connected; false after `timeout`, at a stop, or when cancelled.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await connection.wait(for: .connected, timeout: timeout)
        return isConnected
    }

    /// Publishes a message; returns its id. With `track`, `isAcknowledged` reports it once the broker's PUBACK came
    /// (QoS 1), until `forget`. Handed to the client's thread, which writes it at once when connected.
    @discardableResult
    public func publish(topic: String, payload: Data, qos: Int32 = 1, retain: Bool = false, track: Bool = true) throws
        -> Int32
    {
        let c = connection
        return try c.perform("publishing to \(topic)") {
            var mid: Int32 = 0
            try payload.withUnsafeBytes { bytes in
                try MQTTError.check(
                    mosquitto_publish(c.handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos, retain),
                    "publishing to \(topic)")
            }
            // On the client's thread, before its PUBACK can be read: an id is waited on before it comes, and one
            // left from an earlier use of the id is dropped.
            c.shared.withLock {
                c.acknowledged.remove(mid)
                if track { c.waiting.insert(mid) }
            }
            return mid
        }
    }

    /// True once the broker acknowledged message `mid` (for QoS 0, once it was written to the socket).
    public func isAcknowledged(_ mid: Int32) -> Bool {
        connection.shared.withLock { connection.acknowledged.contains(mid) }
    }

    /// Stops tracking these messages, confirmed or not (their ids may come round again).
    public func forget(_ mids: some Collection<Int32>) {
        connection.shared.withLock {
            connection.waiting.subtract(mids)
            connection.acknowledged.subtract(mids)
        }
    }

    /// Waits until every message of `mids` is acknowledged (through a reconnect too: libmosquitto resends them);
    /// false when `timeout` passed first. Forgets them either way.
    public func waitForAcknowledgements(_ mids: some Collection<Int32>, timeout: Double) -> Bool {
        let c = connection
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        defer { forget(mids) }
        return c.shared.withLock {
            while !mids.allSatisfy(c.acknowledged.contains) {
                guard c.shared.wait(until: deadline) else { return mids.allSatisfy(c.acknowledged.contains) }
            }
            return true
        }
    }

    /// Waits, without holding a thread, until at least `count` of `mids` are acknowledged (all of them when
    /// `count` is larger); stops early when the connection is lost or the task is cancelled, and after `timeout`.
    /// Returns those of `mids` acknowledged by then (still tracked: `forget` them).
    public func acknowledgements(of mids: [Int32], atLeast count: Int, timeout: Duration) async -> Set<Int32> {
        let all = Set(mids)
        await connection.wait(for: .acknowledged(all, needed: min(count, all.count)), timeout: timeout)
        return connection.shared.withLock { all.intersection(connection.acknowledged) }
    }

    /// True when `filter` is a valid subscription (`owntracks/#`, `a/+/b`).
    public static func isValidFilter(_ filter: String) -> Bool {
        mosquitto_sub_topic_check(filter) == Int32(MOSQ_ERR_SUCCESS.rawValue)
    }

    /// Subscribes to a topic filter (`owntracks/#`); messages arrive through `onMessage`.
    public func subscribe(_ filter: String, qos: Int32 = 1) throws {
        let c = connection
        try c.perform("subscribing to \(filter)") {
            try MQTTError.check(mosquitto_subscribe(c.handle, nil, filter, qos), "subscribing to \(filter)")
        }
    }

    /// Ends the connection cleanly (no last will) and waits for the client's thread to end.
    public func disconnect() { connection.stop(drop: false) }

    /// Drops the connection without a DISCONNECT, as a crash would (the broker publishes the last will), and waits
    /// for the client's thread to end.
    public func dropWithoutDisconnect() { connection.stop(drop: true) }
}
