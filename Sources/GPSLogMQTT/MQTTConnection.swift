// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// The libmosquitto handle and the thread that owns it (`MQTTConnection+Loop.swift`). Once the thread runs, every
/// libmosquitto call on the handle happens on it: other threads hand it work through `commands` and wake its poll(2)
/// through `wakePipe`. libmosquitto's callbacks run on it too, inside `mosquitto_loop_read`: what they touch is the
/// thread's own, except the few answers other threads wait for, kept under `shared` with the queue.
///
/// `MQTTClient` is the public face; this object lives as long as either of them (the thread holds a reference while it
/// runs), so a client released from inside one of its own callbacks does not pull the handle from under its thread.
final class MQTTConnection: @unchecked Sendable {
    // @unchecked: the handle and the loop's own fields are touched on the loop thread only (before it starts: by the
    // one thread that sets the client up); everything else goes through `shared`.
    let handle: OpaquePointer
    /// A pipe that wakes the loop's poll when work is queued (`wake`).
    let wakePipe: (read: Int32, write: Int32)

    // MARK: Shared with other threads, under `shared`

    /// The hand-off queue, and the answers other threads wait on; each change is broadcast.
    let shared = MonotonicCondition()
    var commands: [Command] = []
    /// The loop thread while it runs (nil before and once joined), and whether a stop is queued.
    var thread: pthread_t?
    var running = false
    var stopQueued = false
    var joining = false
    /// The CONNACK code of the latest attempt; the first error since the start (a first attempt that failed in the
    /// library, a refusal, a failure), for `connect`; the last failure told to `onFailure` (nil again once
    /// connected), and failures counted.
    var connack: Int32?
    var connectError: MQTTError?
    var lastFailure: ConnectionFailure?
    var failures = 0
    var connected = false
    /// Ids of published messages someone waits on, and those of them the broker confirmed. A PUBACK for an id no
    /// one waits on (a card, a batch given up on) is dropped: ids are 16-bit and come round again.
    var waiting = Set<Int32>()
    var acknowledged = Set<Int32>()
    /// Tasks waiting for acknowledgements or a connection, by a number of their own (`MQTTConnection+Waiters.swift`).
    var waiters: [UInt64: Waiter] = [:]
    var nextWaiter: UInt64 = 0

    // MARK: Set up before the loop starts, then the loop thread's

    var reconnectDelay: (first: Duration, maximum: Duration) = (.seconds(1), .seconds(30))
    /// MQTT v5 CONNECT properties (`setMaximumPacketSize`, `setSessionExpiry`), sent at every attempt; freed in
    /// `deinit`.
    var connectProperties: OpaquePointer?
    var maximumPacketSize: UInt32?
    var sessionExpiry: UInt32?
    var protocolVersion = Int32(MQTT_PROTOCOL_V311)
    /// Where to connect, and how: `connect` waits for the first answer and makes no retry of a first attempt that
    /// fails in the library; `connectInBackground` retries everything.
    var target: (host: String, port: Int, keepalive: Int32) = ("", 0, 60)
    var blocking = false
    var onMessage: (@Sendable (String, Data, Bool) -> Void)?
    var onDelivery: (@Sendable (String, Data, Bool) -> Bool)?
    var onConnection: (@Sendable (Int32?) -> Void)?
    var onSubscribed: (@Sendable () -> Void)?
    var onFailure: (@Sendable (ConnectionFailure) -> Void)?
    var payloadLimit: (@Sendable (String) -> Int)?
    var onOversized: (@Sendable (String, Int) -> Void)?

    // MARK: The loop thread's own

    /// The attempt under way: the broker's refusal (its CONNACK code), or that it accepted the session.
    var refusalCode: Int32?
    var established = false
    /// When the socket was last read and written (for the keepalive: `mosquitto_loop_misc` is due `keepalive`
    /// seconds after the older of the two).
    var lastIn = ContinuousClock.now
    var lastOut = ContinuousClock.now

    /// Work for the loop thread.
    enum Command {
        /// Runs on the loop thread (a publish, a subscription, a setting).
        case run(() -> Void)
        /// Ends the loop: with a DISCONNECT (no last will), or dropped as a crash would (the broker publishes it).
        case stop(drop: Bool)
    }

    private static let libraryReady: Void = { _ = mosquitto_lib_init() }()

    init(clientID: String?, cleanSession: Bool) throws {
        _ = Self.libraryReady
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
        // Unretained: the handle, and so its callbacks, end with this object (`deinit`).
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(mosq, Self.connectCallback)
        mosquitto_disconnect_callback_set(mosq, Self.disconnectCallback)
        mosquitto_publish_callback_set(mosq, Self.publishCallback)
        mosquitto_message_callback_set(mosq, Self.messageCallback)
        mosquitto_subscribe_callback_set(mosq, Self.subscribeCallback)
    }

    deinit {
        // The loop has ended (it holds this object while it runs): nothing else uses the handle.
        mosquitto_destroy(handle)
        if connectProperties != nil { mosquitto_property_free_all(&connectProperties) }
        close(wakePipe.read)
        close(wakePipe.write)
    }

    /// MQTT v5 from the next attempt, with the CONNECT properties set so far; on the thread that owns the handle.
    func speakMQTT5() throws {
        let v5 = Int32(MQTT_PROTOCOL_V5)
        try MQTTError.check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, v5), "choosing MQTT v5")
        if connectProperties != nil { mosquitto_property_free_all(&connectProperties) }
        if let maximumPacketSize {
            try MQTTError.check(
                mosquitto_property_add_int32(
                    &connectProperties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), maximumPacketSize),
                "setting the maximum packet size")
        }
        if let sessionExpiry {
            try MQTTError.check(
                mosquitto_property_add_int32(
                    &connectProperties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), sessionExpiry),
                "setting the session expiry")
        }
        protocolVersion = v5
    }

    /// Wakes the loop's poll (libmosquitto's own wake-up, its socket pair, is read only by `mosquitto_loop`).
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)  // a full pipe already wakes it
    }

    /// Runs `body` on the loop thread and returns its result: at once when called there (from a callback), else
    /// handed over and waited for (the loop wakes at once). Without a loop (before it starts: setting the client up;
    /// after it was joined) it runs on the caller's thread, which then owns the handle.
    /// - Throws: what `body` throws; `MQTTError.library` (no connection) while the loop is stopping.
    func perform<T>(_ operation: @autoclosure () -> String, _ body: @escaping () throws -> T) throws -> T {
        let answer = Answer<T>()
        let route = shared.withLock { () -> Route in
            // No thread (not started, or joined): the caller's thread owns the handle.
            guard let thread else { return running ? .stopped : .here }
            if pthread_equal(thread, pthread_self()) != 0 { return .here }
            guard running, !stopQueued else { return .stopped }
            commands.append(
                .run { [shared] in
                    let result = Result { try body() }
                    shared.withLock {
                        answer.result = result
                        shared.broadcast()
                    }
                })
            return .queued
        }
        switch route {
        case .here: return try body()
        case .stopped:
            let code = Int32(MOSQ_ERR_NO_CONN.rawValue)
            throw MQTTError.library(
                operation: operation(), code: code, message: String(cString: mosquitto_strerror(code)))
        case .queued:
            wake()
            // The loop runs every queued command, even those it finds once it stopped.
            let result = shared.withLock {
                while answer.result == nil { shared.wait() }
                return answer.result!
            }
            return try result.get()
        }
    }

    /// Starts the loop thread; it connects first.
    func start() throws {
        let started = try shared.withLock { () -> Bool in
            guard thread == nil, !running else { return false }
            var id = pthread_t()
            let context = Unmanaged.passRetained(self).toOpaque()
            let rc = pthread_create(
                &id, nil,
                { context in
                    // The thread's reference: the handle stays while the loop runs, however the client is let go.
                    let connection = Unmanaged<MQTTConnection>.fromOpaque(context!).takeRetainedValue()
                    Thread.current.name = "gpslog-mqtt"
                    connection.run()
                    return nil
                }, context)
            guard rc == 0 else {
                Unmanaged<MQTTConnection>.fromOpaque(context).release()
                throw MQTTError.library(
                    operation: "starting the MQTT thread", code: Int32(MOSQ_ERR_ERRNO.rawValue),
                    message: String(cString: strerror(rc)))
            }
            thread = id
            running = true
            stopQueued = false
            connack = nil
            connectError = nil
            lastFailure = nil
            return true
        }
        guard started else {
            let code = Int32(MOSQ_ERR_INVAL.rawValue)
            throw MQTTError.library(
                operation: "connecting to \(target.host):\(target.port)", code: code,
                message: "the client is connected already")
        }
    }

    /// Asks the loop to end (`drop`: without a DISCONNECT) and waits for its thread to end; from a callback (on the
    /// loop thread itself) it only asks, and the thread ends after that turn.
    func stop(drop: Bool) {
        let id = shared.withLock { () -> pthread_t? in
            guard let thread else { return nil }
            if !stopQueued {
                stopQueued = true
                commands.append(.stop(drop: drop))
                // Not connected from here: the loss that follows a DISCONNECT we asked for is not reported.
                if !drop { connected = false }
                settleWaiters()
                shared.broadcast()
            }
            return thread
        }
        guard let id else { return }
        wake()
        if pthread_equal(id, pthread_self()) != 0 {
            shared.withLock { thread = nil }
            pthread_detach(id)
            return
        }
        // One caller joins; another one waits for the join.
        let joiner = shared.withLock { () -> Bool in
            guard let thread, pthread_equal(thread, id) != 0 else { return false }
            self.thread = nil
            joining = true
            return true
        }
        if joiner {
            pthread_join(id, nil)
            shared.withLock {
                joining = false
                shared.broadcast()
            }
        } else {
            shared.withLock { while joining { shared.wait() } }
        }
    }

    /// The broker's reason for a CONNACK code of the protocol spoken (v5 has codes of its own).
    func refusalText(_ code: Int32) -> String {
        protocolVersion == Int32(MQTT_PROTOCOL_V5)
            ? String(cString: mosquitto_reason_string(code)) : String(cString: mosquitto_connack_string(code))
    }
}

/// Where `perform` runs its work.
private enum Route { case here, queued, stopped }

/// The result of work handed to the loop thread: written there and read by the caller, both under `shared`.
private final class Answer<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
