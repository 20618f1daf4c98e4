// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// The network thread: libmosquitto's external-loop calls (`mosquitto_socket`, `mosquitto_want_write`,
/// `mosquitto_loop_read`, `mosquitto_loop_write`, `mosquitto_loop_misc`) around poll(2), and a reconnect with
/// backoff (`ReconnectBackoff`, on the monotonic clock) after any failure, each failure told to `onFailure`.
///
/// Why not `mosquitto_loop` or `mosquitto_loop_start`: they wait in pselect(2) on an `fd_set`, which holds
/// descriptors below 1024 only; in a process with more open (`serve` with many clients, a long test run), the broker's
/// socket gets a higher number, and glibc aborts the process ("bit out of range 0 - FD_SETSIZE on fd_set").
/// libmosquitto 2.0.11 (Debian 12) does not check for it. And libmosquitto's own thread gives up for good on errors
/// it deems fatal (a TLS handshake or protocol error, a name that does not resolve: eclipse/mosquitto#2825), which
/// would leave a recorder that runs for months never publishing again.
extension MQTTClient {
    /// Wakes the network thread's poll: something was queued to write (libmosquitto's own wake-up, its socket pair,
    /// is read only by `mosquitto_loop`).
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)  // a full pipe already wakes it
    }

    /// The loop, until a stop is asked for; then what is queued (a DISCONNECT) is written, unless the stop drops it.
    /// - Parameter started: a connection is under way (its CONNACK not yet read); false: connect first.
    func runLoop(started: Bool) {
        var backoff = state.withLock { ReconnectBackoff(first: reconnectDelay.first, maximum: reconnectDelay.maximum) }
        // nil: connected, or connecting; otherwise when to try again, on the monotonic clock.
        var next: ContinuousClock.Instant? = started ? nil : .now
        while !state.withLock({ stopRequested }) {
            if let due = next {
                // Waited in slices, so that a stop does not wait out the backoff.
                while ContinuousClock.now < due && !state.withLock({ stopRequested }) { usleep(100_000) }
                if state.withLock({ stopRequested }) { break }
                state.withLock {
                    refusalCode = nil
                    established = false
                }
                let rc = attemptConnection()
                if rc != Self.success {
                    let failure = ConnectionFailure(
                        kind: .unreachable, reason: ConnectionFailure.text(rc, errno: errno))
                    next = report(failure, backoff: &backoff)
                    continue
                }
                next = nil
            }
            let rc = turn(timeout: 1000)
            if rc != Self.success && !state.withLock({ stopRequested }) {
                let saved = errno
                let (wasEstablished, refusal) = state.withLock {
                    defer {
                        connected = false
                        established = false
                    }
                    return (established, refusalCode)
                }
                if wasEstablished {
                    // A connection was made and is lost: from the first delay again.
                    backoff.connected()
                    state.withLock { lastFailure = nil }
                    next = .now + backoff.failed()
                } else if let refusal {
                    let reason = refusalText(refusal)
                    if refusal == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) { fallBackToMQTT311() }
                    next = report(ConnectionFailure(kind: .refused, reason: reason), backoff: &backoff)
                } else {
                    let reason = ConnectionFailure.text(rc, errno: saved)
                    next = report(ConnectionFailure(kind: .broken, reason: reason), backoff: &backoff)
                }
            }
        }
        if !state.withLock({ dropRequested }) { flush() }
    }

    /// Counts a failed attempt, tells `onFailure` (a repeat of the last one marked as such), and returns when to
    /// try again.
    private func report(_ failure: ConnectionFailure, backoff: inout ReconnectBackoff) -> ContinuousClock.Instant {
        var failure = failure
        failure.retryIn = backoff.failed()
        failure.isRepeat = state.withLock {
            defer {
                lastFailure = failure
                failures += 1
                state.broadcast()
            }
            return failure.sameAs(lastFailure)
        }
        onFailure?(failure)
        return .now + failure.retryIn
    }

    /// One connection attempt (blocking, on this thread): with the MQTT v5 properties of `setMaximumPacketSize`
    /// when set (libmosquitto's reconnect would send none), else libmosquitto's reconnect.
    private func attemptConnection() -> Int32 {
        guard let target else { return mosquitto_reconnect(handle) }
        let v5 = protocolVersion == Int32(MQTT_PROTOCOL_V5)
        return mosquitto_connect_bind_v5(
            handle, target.host, Int32(target.port), target.keepalive, nil, v5 ? connectProperties : nil)
    }

    /// A broker without MQTT v5 (Mosquitto before 1.6) refuses its CONNECT: the next attempts speak 3.1.1, without
    /// properties (a message over `payloadLimit` is then refused by its size, before it is copied).
    private func fallBackToMQTT311() {
        let v311 = Int32(MQTT_PROTOCOL_V311)
        guard mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, v311) == Self.success else { return }
        protocolVersion = v311
    }

    private static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)

    /// One turn, as `mosquitto_loop` does it: read when readable, write when writable or woken, then keepalive.
    private func turn(timeout: Int32) -> Int32 {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return Int32(MOSQ_ERR_NO_CONN.rawValue) }
        let events = Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0)
        var fds = [
            pollfd(fd: socket, events: events, revents: 0),
            pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&fds, 2, timeout) < 0 {
            return errno == EINTR ? Self.success : Int32(MOSQ_ERR_ERRNO.rawValue)
        }
        var woken = false
        if fds[1].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakePipe.read, &drain, drain.count) > 0 {}
            woken = true
        }
        if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            let rc = mosquitto_loop_read(handle, 1)
            if rc != Self.success || mosquitto_socket(handle) < 0 { return rc }
        }
        if fds[0].revents & Int16(POLLOUT) != 0 || woken {
            let rc = mosquitto_loop_write(handle, 1)
            if rc != Self.success || mosquitto_socket(handle) < 0 { return rc }
        }
        return mosquitto_loop_misc(handle)
    }

    /// Writes what is still queued (a DISCONNECT asked for just before the stop), for up to a second.
    private func flush() {
        let deadline = ContinuousClock.now + .seconds(1)
        while mosquitto_want_write(handle) && mosquitto_socket(handle) >= 0 && ContinuousClock.now < deadline {
            var fd = pollfd(fd: mosquitto_socket(handle), events: Int16(POLLOUT), revents: 0)
            guard poll(&fd, 1, 100) >= 0, mosquitto_loop_write(handle, 1) == Self.success else { return }
        }
    }
}
