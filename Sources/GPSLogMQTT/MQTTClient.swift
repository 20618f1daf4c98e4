// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// One connection to an MQTT broker through libmosquitto: owns the `mosquitto *` (freed in `deinit`), runs a network
/// thread of ours (`MQTTClient+Loop.swift`), and reports the broker's answers: the CONNACK, each PUBACK of a QoS 1
/// message by its id, and the messages of subscriptions.
///
/// The thread reconnects after a connection is lost (with `reconnectDelay`), and libmosquitto resends QoS 1 messages
/// that were not acknowledged; `isConnected` says where it stands.
public final class MQTTClient: @unchecked Sendable {
    // @unchecked: the handle is used as libmosquitto allows from any thread; the state below goes through `state`.
    let handle: OpaquePointer
    let state = NSCondition()
    private var connack: Int32?
    var connected = false
    /// Ids of published messages someone waits on, and those of them the broker confirmed. A PUBACK for an id no
    /// one waits on (a card, a batch given up on) is dropped: ids are 16-bit and come round again.
    private var waiting = Set<Int32>()
    private var acknowledged = Set<Int32>()
    private var loopRunning = false
    /// The network thread (`runLoop`), and its stop request (`dropRequested`: stop without writing what is queued).
    private var ownLoop: Thread?
    var stopRequested = false
    var dropRequested = false
    private let loopEnded = DispatchSemaphore(value: 0)
    var reconnectDelay: (first: Duration, maximum: Duration) = (.seconds(1), .seconds(30))
    /// The attempt under way: the broker's refusal (its CONNACK code), or that it accepted the session.
    var refusalCode: Int32?
    var established = false
    /// The last failure reported since a connection was made (a repeat is marked), and how many so far.
    var lastFailure: ConnectionFailure?
    var failures = 0
    /// MQTT v5 CONNECT properties (`setMaximumPacketSize`), sent at every attempt; freed in `deinit`.
    var connectProperties: OpaquePointer?
    var protocolVersion = Int32(MQTT_PROTOCOL_V311)
    /// Where `connectInBackground` connects, for the attempts with properties.
    var target: (host: String, port: Int, keepalive: Int32)?
    /// A pipe that wakes the network thread's poll when a message is queued (`wake`).
    let wakePipe: (read: Int32, write: Int32)
    /// Where it connects, for messages.
    public private(set) var broker = ""
    /// Called on libmosquitto's thread for each message of a subscription: topic, payload, retained.
    public var onMessage: (@Sendable (String, Data, Bool) -> Void)?
    /// Called on libmosquitto's thread when a connection is made (0), refused by the broker (its CONNACK code: see
    /// `refusal`), or lost (nil).
    public var onConnection: (@Sendable (Int32?) -> Void)?
    /// Called on libmosquitto's thread when the broker confirmed a subscription (SUBACK).
    public var onSubscribed: (@Sendable () -> Void)?
    /// Called on the network thread for each failed attempt to reach the broker (a TCP connection refused, the
    /// session refused, an answer that is not MQTT), with the wait before the next one; `isRepeat` when the same
    /// failure was reported since the last connection (log it once loudly, then quietly).
    public var onFailure: (@Sendable (ConnectionFailure) -> Void)?
    /// The largest payload taken on a topic: a message over it goes to `onOversized` (topic, size), never copied.
    public var payloadLimit: (@Sendable (String) -> Int)?
    public var onOversized: (@Sendable (String, Int) -> Void)?

    private static let libraryReady: Void = { _ = mosquitto_lib_init() }()

    /// A client with this id (nil: libmosquitto makes one; a persistent session needs a fixed id).
    /// - Parameter cleanSession: false keeps the broker's session (subscriptions, queued QoS 1 messages) across
    ///   connections.
    public init(clientID: String?, cleanSession: Bool = true) throws {
        _ = Self.libraryReady
        // `obj` is filled once self exists (mosquitto_user_data_set), below.
        guard let mosq = mosquitto_new(clientID, cleanSession, nil) else {
            throw MQTTError.library(
                operation: "creating a client", code: Int32(MOSQ_ERR_NOMEM.rawValue),
                message: String(cString: strerror(errno)))
        }
        handle = mosq
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            mosquitto_destroy(mosq)
            throw MQTTError.library(
                operation: "creating the wake-up pipe", code: Int32(MOSQ_ERR_ERRNO.rawValue),
                message: String(cString: strerror(errno)))
        }
        wakePipe = (fds[0], fds[1])
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(mosq, Self.connectCallback)
        mosquitto_disconnect_callback_set(mosq, Self.disconnectCallback)
        mosquitto_publish_callback_set(mosq, Self.publishCallback)
        mosquitto_message_callback_set(mosq, Self.messageCallback)
        mosquitto_subscribe_callback_set(mosq, Self.subscribeCallback)
    }

    deinit {
        // Not forced: cancelling the network thread inside a Swift callback is undefined; the DISCONNECT wakes it.
        if loopRunning {
            mosquitto_disconnect(handle)
            wake()
            stopLoop(force: false)
        }
        mosquitto_destroy(handle)
        if connectProperties != nil { mosquitto_property_free_all(&connectProperties) }
        close(wakePipe.read)
        close(wakePipe.write)
    }

    /// The user name and password sent at CONNECT (the password never leaves this call in any message).
    public func setCredentials(username: String, password: String?) throws {
        try MQTTError.check(mosquitto_username_pw_set(handle, username, password), "setting the user name")
    }

    /// TLS with the CA certificate file that signs the broker's, and a client certificate and key when given.
    public func setTLS(caFile: String, certificateFile: String? = nil, keyFile: String? = nil) throws {
        try MQTTError.check(
            mosquitto_tls_set(handle, caFile, nil, certificateFile, keyFile, nil), "setting up TLS with \(caFile)")
    }

    /// The message the broker publishes for us when the connection drops without a DISCONNECT (OwnTracks' lwt).
    public func setWill(topic: String, payload: Data, qos: Int32 = 1, retain: Bool = false) throws {
        try payload.withUnsafeBytes { bytes in
            try MQTTError.check(
                mosquitto_will_set(handle, topic, Int32(bytes.count), bytes.baseAddress, qos, retain),
                "setting the last will on \(topic)")
        }
    }

    /// How long the network thread waits before trying again after any failure: from `delay` seconds, doubling
    /// to `maximum` (`ReconnectBackoff`).
    public func setReconnectDelay(_ delay: UInt32, maximum: UInt32) throws {
        try MQTTError.check(mosquitto_reconnect_delay_set(handle, delay, maximum, true), "setting the reconnect delay")
        state.withLock { reconnectDelay = (.seconds(max(1, delay)), .seconds(max(delay, maximum))) }
    }

    /// Speaks MQTT v5 and announces at every CONNECT that no packet over `bytes` may come (Maximum Packet Size): the
    /// broker drops a larger message for this client instead of sending it, so that it never reaches the memory.
    /// Before `connectInBackground`.
    public func setMaximumPacketSize(_ bytes: UInt32) throws {
        let v5 = Int32(MQTT_PROTOCOL_V5)
        try MQTTError.check(
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, v5), "choosing MQTT v5")
        if connectProperties != nil { mosquitto_property_free_all(&connectProperties) }
        try MQTTError.check(
            mosquitto_property_add_int32(&connectProperties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), bytes),
            "setting the maximum packet size")
        protocolVersion = v5
    }

    /// Connects (the TCP and TLS handshakes happen here), starts the network thread, and waits for the broker's
    /// CONNACK.
    /// - Throws: `MQTTError.refused` with the broker's reason, `.timedOut`, or the library's error.
    public func connect(host: String, port: Int, keepalive: Int32 = 60, timeout: Double = 10) throws {
        broker = "\(host):\(port)"
        try MQTTError.check(mosquitto_threaded_set(handle, true), "marking the client as threaded")
        try MQTTError.check(mosquitto_connect(handle, host, Int32(port), keepalive), "connecting to \(broker)")
        startLoop(connected: true)
        // Polled on the monotonic clock (a condition's timed wait follows the wall clock); the first failure of
        // the network thread (an answer that is not MQTT) ends the wait too.
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var (code, failure): (Int32?, ConnectionFailure?) = (nil, nil)
        while ContinuousClock.now < deadline {
            (code, failure) = state.withLock { (connack, lastFailure) }
            if code != nil || failure != nil { break }
            usleep(5_000)
        }
        guard code == 0 else {
            // Stop the network thread here, on the caller's thread: it must not outlive a failed connect.
            disconnect()
            if let code { throw MQTTError.refused(broker: broker, message: refusalText(code)) }
            if let failure { throw MQTTError.failed(broker: broker, message: failure.summary) }
            throw MQTTError.timedOut(operation: "CONNECT", seconds: timeout)
        }
    }

    /// The broker's reason for a CONNACK code of MQTT 3.1.1, in libmosquitto's words.
    public static func refusal(_ code: Int32) -> String { String(cString: mosquitto_connack_string(code)) }

    /// The broker's reason for a CONNACK code of the protocol this client speaks (v5 has codes of its own).
    func refusalText(_ code: Int32) -> String {
        protocolVersion == Int32(MQTT_PROTOCOL_V5)
            ? String(cString: mosquitto_reason_string(code)) : Self.refusal(code)
    }

    /// Failed attempts to reach the broker so far (each told to `onFailure`).
    public var failedAttempts: Int { state.withLock { failures } }

    /// Starts connecting and returns at once: a network thread of ours connects, and reconnects whenever the broker
    /// is away (at the start too), with `setReconnectDelay`'s backoff, for as long as the client runs;
    /// `onConnection` reports each change.
    public func connectInBackground(host: String, port: Int, keepalive: Int32 = 60) throws {
        broker = "\(host):\(port)"
        try MQTTError.check(mosquitto_threaded_set(handle, true), "marking the client as threaded")
        guard connectProperties == nil else {
            // With properties, every attempt is made by the network thread (libmosquitto's async connect takes none).
            target = (host, port, keepalive)
            return startLoop(connected: false)
        }
        // A broker away at the start is not an error here: the loop tries again (and reports why).
        let first = mosquitto_connect_async(handle, host, Int32(port), keepalive)
        startLoop(connected: first == Int32(MOSQ_ERR_SUCCESS.rawValue))
    }

    /// Starts the network thread.
    private func startLoop(connected: Bool) {
        let thread = Thread { [self] in
            runLoop(started: connected)
            loopEnded.signal()
        }
        thread.name = "gpslog-mqtt"
        state.withLock {
            ownLoop = thread
            stopRequested = false
            dropRequested = false
        }
        loopRunning = true
        thread.start()
    }

    /// True while connected to the broker.
    public var isConnected: Bool { state.withLock { connected } }

    /// Publishes a message; returns its id. With `track`, `isAcknowledged` reports it once the broker's PUBACK came
    /// (QoS 1), until `forget`.
    @discardableResult
    public func publish(topic: String, payload: Data, qos: Int32 = 1, retain: Bool = false, track: Bool = true) throws
        -> Int32
    {
        var mid: Int32 = 0
        // Held across the call: an id is waited on before its PUBACK can come (on the network thread, which
        // waits for the lock), and a PUBACK left from an earlier use of the id is dropped.
        state.lock()
        defer { state.unlock() }
        try payload.withUnsafeBytes { bytes in
            try MQTTError.check(
                mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos, retain),
                "publishing to \(topic)")
        }
        wake()
        acknowledged.remove(mid)
        if track { waiting.insert(mid) }
        return mid
    }

    /// True once the broker acknowledged message `mid` (for QoS 0, once it was written to the socket).
    public func isAcknowledged(_ mid: Int32) -> Bool { state.withLock { acknowledged.contains(mid) } }

    /// Stops tracking these messages, confirmed or not (their ids may come round again).
    public func forget(_ mids: some Collection<Int32>) {
        state.withLock {
            waiting.subtract(mids)
            acknowledged.subtract(mids)
        }
    }

    /// Waits until every message of `mids` is acknowledged; false when `timeout` passed first. Forgets them either
    /// way.
    public func waitForAcknowledgements(_ mids: some Collection<Int32>, timeout: Double) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        defer { forget(mids) }
        // Polled on the monotonic clock: a condition's timed wait follows the wall clock.
        while !state.withLock({ mids.allSatisfy(acknowledged.contains) }) {
            guard ContinuousClock.now < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    /// True when `filter` is a valid subscription (`owntracks/#`, `a/+/b`).
    public static func isValidFilter(_ filter: String) -> Bool {
        mosquitto_sub_topic_check(filter) == Int32(MOSQ_ERR_SUCCESS.rawValue)
    }

    /// Subscribes to a topic filter (`owntracks/#`); messages arrive through `onMessage`.
    public func subscribe(_ filter: String, qos: Int32 = 1) throws {
        try MQTTError.check(mosquitto_subscribe(handle, nil, filter, qos), "subscribing to \(filter)")
        wake()
    }

    /// Ends the connection cleanly (no last will) and stops the network thread.
    public func disconnect() {
        guard loopRunning else { return }
        // Not connected from here: the disconnect callback then reports no loss for a DISCONNECT we asked for.
        state.withLock { connected = false }
        mosquitto_disconnect(handle)
        wake()
        stopLoop(force: false)
        state.withLock { connected = false }
    }

    /// Stops the network thread without a DISCONNECT, as a crash would: the broker publishes the last will when the
    /// socket closes (in `deinit`).
    public func dropWithoutDisconnect() {
        guard loopRunning else { return }
        stopLoop(force: true)
    }

    /// Asks the network thread to stop (with `force`, without writing what is queued) and waits for it.
    private func stopLoop(force: Bool) {
        let own = state.withLock {
            stopRequested = true
            dropRequested = force
            return ownLoop
        }
        wake()
        if own != nil {
            // The poll returns within its 1 s timeout, at once when woken; the backoff waits in 0.1 s slices.
            loopEnded.wait()
            state.withLock { ownLoop = nil }
        }
        loopRunning = false
    }

    // MARK: - Callbacks, on libmosquitto's thread

    private static func client(_ obj: UnsafeMutableRawPointer?) -> MQTTClient? {
        obj.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let connectCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        _, obj, code in
        guard let client = client(obj) else { return }
        client.state.withLock {
            client.connack = code
            client.connected = code == 0
            if code == 0 {
                client.established = true
                client.lastFailure = nil
            } else {
                client.refusalCode = code
            }
            client.state.broadcast()
        }
        client.onConnection?(code)
    }

    private static let disconnectCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void =
        { _, obj, _ in
            guard let client = client(obj) else { return }
            // A refused CONNECT ends in a disconnect too: report only the loss of a connection that was made.
            let wasConnected = client.state.withLock {
                defer { client.connected = false }
                return client.connected
            }
            if wasConnected { client.onConnection?(nil) }
        }

    private static let publishCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        _, obj, mid in
        guard let client = client(obj) else { return }
        client.state.withLock {
            guard client.waiting.contains(mid) else { return }
            client.acknowledged.insert(mid)
            client.state.broadcast()
        }
    }

    private static let subscribeCallback:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?) -> Void = {
            _, obj, _, _, _ in
            client(obj)?.onSubscribed?()
        }

    private static let messageCallback:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
            _, obj, message in
            guard let client = client(obj), let m = message?.pointee, let topic = m.topic else { return }
            let name = String(cString: topic)
            // Refused by its size before it is copied or decoded.
            if let limit = client.payloadLimit?(name), Int(m.payloadlen) > limit {
                client.onOversized?(name, Int(m.payloadlen))
                return
            }
            let payload = m.payload.map { Data(bytes: $0, count: Int(m.payloadlen)) } ?? Data()
            client.onMessage?(name, payload, m.retain)
        }
}
