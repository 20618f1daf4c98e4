// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// The loop thread: libmosquitto's external-loop calls (`mosquitto_socket`, `mosquitto_want_write`,
/// `mosquitto_loop_read`, `mosquitto_loop_write`, `mosquitto_loop_misc`) around poll(2) on the socket and the wake
/// pipe, the work other threads queue, and a reconnect with backoff (`ReconnectBackoff`, on the monotonic clock) after
/// any failure, each failure told to `onFailure`. It sleeps only in poll(2), until the socket or the pipe has something,
/// the keepalive is due, the next attempt is, or a waiting task's deadline passes.
///
/// Why not `mosquitto_loop` or `mosquitto_loop_start`: they wait in pselect(2) on an `fd_set`, which holds
/// descriptors below 1024 only; in a process with more open (`serve` with many clients, a long test run), the broker's
/// socket gets a higher number, and glibc aborts the process ("bit out of range 0 - FD_SETSIZE on fd_set").
/// libmosquitto 2.0.11 (Debian 12) does not check for it. And libmosquitto's own thread gives up for good on errors
/// it deems fatal (a TLS handshake or protocol error, a name that does not resolve: eclipse/mosquitto#2825), which
/// would leave a recorder that runs for months never publishing again.
extension MQTTConnection {
    private static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)

    /// The thread's body: connects, then turns until a stop is asked for; then writes the DISCONNECT (or drops the
    /// connection), runs what was still queued, and wakes whoever waits.
    func run() {
        var backoff = ReconnectBackoff(first: reconnectDelay.first, maximum: reconnectDelay.maximum)
        // nil: connected, or connecting; otherwise when to try again, on the monotonic clock.
        var next: ContinuousClock.Instant?
        var stop: Bool?
        let first = attempt(first: true)
        if first != Self.success {
            let saved = errno
            guard !blocking else {
                // `connect` reports it as the library's error, and makes no second attempt.
                let error = MQTTError.make(first, errno: saved, "connecting to \(broker)")
                shared.withLock { connectError = error }
                return end(stop: nil)
            }
            next = report(.init(kind: .unreachable, reason: ConnectionFailure.text(first, errno: saved)), &backoff)
        }
        while stop == nil {
            let work = shared.withLock {
                defer { commands = [] }
                return commands
            }
            for command in work {
                switch command {
                case .run(let body): body()
                case .stop(let drop): stop = stop ?? drop
                }
            }
            if stop != nil { break }
            let now = ContinuousClock.now
            shared.withLock { settleWaiters(now: now) }
            if let due = next, now >= due {
                refusalCode = nil
                established = false
                let rc = attempt(first: false)
                next =
                    rc == Self.success
                    ? nil
                    : report(.init(kind: .unreachable, reason: ConnectionFailure.text(rc, errno: errno)), &backoff)
                continue
            }
            let rc = turn(retryAt: next)
            guard rc != Self.success, next == nil else { continue }
            next = failed(rc, errno: errno, &backoff)
        }
        end(stop: stop)
    }

    /// Where it connects, for messages.
    var broker: String { "\(target.host):\(target.port)" }

    /// One connection attempt (blocking, on this thread): with the MQTT v5 properties of `setMaximumPacketSize` when
    /// set (libmosquitto's reconnect would send none), else libmosquitto's connect (asynchronous at the first
    /// attempt in the background) or reconnect.
    private func attempt(first: Bool) -> Int32 {
        lastIn = .now
        lastOut = .now
        let (host, port, keepalive) = (target.host, Int32(target.port), target.keepalive)
        if connectProperties != nil {
            let v5 = protocolVersion == Int32(MQTT_PROTOCOL_V5)
            return mosquitto_connect_bind_v5(handle, host, port, keepalive, nil, v5 ? connectProperties : nil)
        }
        guard first else { return mosquitto_reconnect(handle) }
        return blocking
            ? mosquitto_connect(handle, host, port, keepalive) : mosquitto_connect_async(handle, host, port, keepalive)
    }

    /// A connection that ended (`rc`, and errno taken at once): lost after the broker accepted it (from the first
    /// delay again, told by `onConnection`), or a failed attempt (refused, or not MQTT: told by `onFailure`).
    /// Returns when to try again.
    private func failed(_ rc: Int32, errno saved: Int32, _ backoff: inout ReconnectBackoff) -> ContinuousClock.Instant {
        let (wasEstablished, refusal) = (established, refusalCode)
        established = false
        shared.withLock {
            connected = false
            settleWaiters()
            shared.broadcast()
        }
        if wasEstablished {
            backoff.connected()
            shared.withLock { lastFailure = nil }
            return .now + backoff.failed()
        }
        if let refusal {
            let reason = refusalText(refusal)
            if refusal == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) { fallBackToMQTT311() }
            return report(ConnectionFailure(kind: .refused, reason: reason), &backoff)
        }
        return report(ConnectionFailure(kind: .broken, reason: ConnectionFailure.text(rc, errno: saved)), &backoff)
    }

    /// Counts a failed attempt, tells `onFailure` (a repeat of the last one marked as such), and returns when to
    /// try again.
    private func report(_ failure: ConnectionFailure, _ backoff: inout ReconnectBackoff) -> ContinuousClock.Instant {
        var failure = failure
        failure.retryIn = backoff.failed()
        failure.isRepeat = shared.withLock {
            defer {
                lastFailure = failure
                failures += 1
                if connectError == nil { connectError = .failed(broker: broker, message: failure.summary) }
                shared.broadcast()
            }
            return failure.sameAs(lastFailure)
        }
        onFailure?(failure)
        return .now + failure.retryIn
    }

    /// A broker without MQTT v5 (Mosquitto before 1.6) refuses its CONNECT: the next attempts speak 3.1.1, without
    /// properties (a message over `payloadLimit` is then refused by its size, before it is copied).
    private func fallBackToMQTT311() {
        let v311 = Int32(MQTT_PROTOCOL_V311)
        guard mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, v311) == Self.success else { return }
        protocolVersion = v311
    }

    /// One turn, as `mosquitto_loop` does it: poll(2) until the socket is readable (or writable, when something is
    /// queued), the pipe is woken, or the next deadline; then read, write, and keepalive. Between connections
    /// (`retryAt`), only the pipe until the next attempt.
    private func turn(retryAt: ContinuousClock.Instant?) -> Int32 {
        let socket = retryAt == nil ? mosquitto_socket(handle) : -1
        if retryAt == nil && socket < 0 { return Int32(MOSQ_ERR_NO_CONN.rawValue) }
        let keepalive = target.keepalive > 0 ? min(lastIn, lastOut) + .seconds(target.keepalive) : nil
        var deadline = retryAt ?? keepalive
        if let waiter = shared.withLock({ nextWaiterDeadline }) { deadline = min(deadline ?? waiter, waiter) }
        let events = Int16(POLLIN) | (socket >= 0 && mosquitto_want_write(handle) ? Int16(POLLOUT) : 0)
        var fds = [
            pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
            pollfd(fd: socket, events: events, revents: 0),
        ]
        if poll(&fds, socket >= 0 ? 2 : 1, deadline.map { Self.milliseconds(until: $0) } ?? -1) < 0 {
            return errno == EINTR ? Self.success : Int32(MOSQ_ERR_ERRNO.rawValue)
        }
        if fds[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakePipe.read, &drain, drain.count) > 0 {}
        }
        guard socket >= 0 else { return Self.success }
        if fds[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            let rc = mosquitto_loop_read(handle, 1)
            if rc != Self.success || mosquitto_socket(handle) < 0 { return rc }
            lastIn = .now
        }
        if fds[1].revents & Int16(POLLOUT) != 0 {
            let rc = mosquitto_loop_write(handle, 1)
            if rc != Self.success || mosquitto_socket(handle) < 0 { return rc }
            lastOut = .now
        }
        // Past the keepalive, libmosquitto sends a PINGREQ (or gives up on a broker that did not answer the last).
        if let keepalive, ContinuousClock.now >= keepalive {
            lastIn = .now
            lastOut = .now
        }
        return mosquitto_loop_misc(handle)
    }

    /// poll(2)'s timeout for `deadline`: whole milliseconds, rounded up (an early wake would turn for nothing).
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = deadline - .now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// The end of the loop: a DISCONNECT written (for up to a second), or the connection shut as a crash would
    /// (`stop` true: the broker publishes the last will); then the loop stops taking work, runs what was queued
    /// meanwhile, and wakes whoever waits.
    private func end(stop: Bool?) {
        switch stop {
        case false?:
            mosquitto_disconnect(handle)
            flush()
        case true?:
            // shutdown, not close: the descriptor stays libmosquitto's, closed with the handle.
            let socket = mosquitto_socket(handle)
            if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        case nil: break
        }
        let leftovers = shared.withLock {
            running = false
            connected = false
            settleWaiters()
            shared.broadcast()
            defer { commands = [] }
            return commands
        }
        for case .run(let body) in leftovers { body() }
    }

    /// Writes what is still queued (the DISCONNECT), for up to a second; libmosquitto closes the socket once the
    /// DISCONNECT is out.
    private func flush() {
        let deadline = ContinuousClock.now + .seconds(1)
        while mosquitto_want_write(handle) && mosquitto_socket(handle) >= 0 && ContinuousClock.now < deadline {
            var fd = pollfd(fd: mosquitto_socket(handle), events: Int16(POLLOUT), revents: 0)
            guard poll(&fd, 1, Self.milliseconds(until: deadline)) >= 0,
                mosquitto_loop_write(handle, 1) == Self.success
            else { return }
        }
    }
}
