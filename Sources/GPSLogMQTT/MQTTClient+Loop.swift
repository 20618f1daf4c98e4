// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// The network thread: libmosquitto's external-loop calls (`mosquitto_socket`, `mosquitto_want_write`,
/// `mosquitto_loop_read`, `mosquitto_loop_write`, `mosquitto_loop_misc`) around poll(2), and a reconnect with
/// backoff after any failure.
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
    func runLoop(started: Bool) {
        // -1: connected (or connecting); 0: reconnect now; n > 0: reconnect after first * 2^(n-1) seconds.
        var attempt = started ? -1 : 0
        while !state.withLock({ stopRequested }) {
            if attempt >= 0 {
                let (first, maximum) = state.withLock { reconnectDelay }
                let delay = min(Double(maximum), Double(first) * pow(2, Double(min(max(attempt - 1, 0), 16))))
                // Waited in slices, so that a stop does not wait out the backoff.
                let until = Date().addingTimeInterval(attempt == 0 ? 0 : delay)
                while Date() < until && !state.withLock({ stopRequested }) { usleep(100_000) }
                if state.withLock({ stopRequested }) { break }
                if mosquitto_reconnect(handle) != Self.success {
                    attempt += 1
                    continue
                }
                attempt = -1
            }
            if turn(timeout: 1000) != Self.success && !state.withLock({ stopRequested }) {
                state.withLock { connected = false }
                attempt = 1
            }
        }
        if !state.withLock({ dropRequested }) { flush() }
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
        let deadline = Date().addingTimeInterval(1)
        while mosquitto_want_write(handle) && mosquitto_socket(handle) >= 0 && Date() < deadline {
            var fd = pollfd(fd: mosquitto_socket(handle), events: Int16(POLLOUT), revents: 0)
            guard poll(&fd, 1, 100) >= 0, mosquitto_loop_write(handle, 1) == Self.success else { return }
        }
    }
}
