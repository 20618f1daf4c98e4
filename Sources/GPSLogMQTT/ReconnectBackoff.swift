// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// When to try the broker again: `first` after a failure, doubling with each further failure up to `maximum`, from
/// `first` again once a connection was made. Every kind of failure counts (the TCP connection refused, the session
/// refused at CONNACK, an answer that is not MQTT, a failed TLS handshake): a broker that takes the TCP connection and
/// then refuses must not be asked once a second forever. Deadlines are on the monotonic clock: a wall clock stepped
/// back an hour must not stop the reconnecting.
public struct ReconnectBackoff: Sendable, Equatable {
    /// The wait after the first failure (at least 1 ms).
    public let first: Duration
    /// The longest wait, however many failures (never below `first`).
    public let maximum: Duration
    /// Failures since the last connection.
    public private(set) var failures = 0

    /// Waits of `first` (1 s by default) doubling up to `maximum` (30 s by default).
    public init(first: Duration = .seconds(1), maximum: Duration = .seconds(30)) {
        self.first = max(first, .milliseconds(1))
        self.maximum = max(self.first, maximum)
    }

    /// Counts a failure; returns how long to wait before the next attempt.
    public mutating func failed() -> Duration {
        let doublings = min(failures, 30)
        failures += 1
        var delay = first
        for _ in 0..<doublings where delay < maximum { delay = delay * 2 }
        return min(delay, maximum)
    }

    /// A connection was made: the next failure waits `first` again.
    public mutating func connected() { failures = 0 }

    /// The time of the next attempt after a failure `now` (a monotonic instant; tests pass their own).
    public mutating func nextAttempt(after now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        now + failed()
    }
}

/// Why an attempt to reach the broker failed, in libmosquitto's or the broker's words.
public struct ConnectionFailure: Sendable, Equatable {
    /// How an attempt failed.
    public enum Kind: String, Sendable {
        /// No connection (TCP refused, a name that does not resolve, a failed TLS handshake).
        case unreachable
        /// The broker answered CONNECT with a refusal (a bad user name or password, not authorised).
        case refused
        /// The connection ended before the broker accepted the session: it spoke something that is not MQTT, or
        /// closed (a TLS broker that wants a client certificate closes after the handshake).
        case broken
    }

    /// What kind of failure it was.
    public var kind: Kind
    /// The reason (`mosquitto_connack_string`, `mosquitto_reason_string`, `mosquitto_strerror`, `strerror`).
    public var reason: String
    /// Seconds until the next attempt.
    public var retryIn: Duration = .zero
    /// True when a failure of the same kind was reported since the last connection: say it quietly (debug).
    public var isRepeat = false

    /// A failure to report now: no wait set yet, not a repeat.
    public init(kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// What happened, for a log line after the broker's name: "refused the session: Connection Refused: not
    /// authorised".
    public var summary: String {
        switch kind {
        case .unreachable: "cannot be reached: \(reason)"
        case .refused: "refused the connection: \(reason)"
        case .broken:
            "ended the connection before accepting it (is it an MQTT broker, and TLS as the URL says?): \(reason)"
        }
    }

    /// The wait before the next attempt, as a log line says it: "4 s".
    public var retryText: String {
        let c = retryIn.components
        return "\(Double(c.seconds) + Double(c.attoseconds) / 1e18) s".replacingOccurrences(of: ".0 s", with: " s")
    }

    /// The same kind of failure: a change of kind is said again at warning level (a server that speaks no MQTT
    /// fails in words that vary with the timing: "connection lost", "protocol error").
    func sameAs(_ other: ConnectionFailure?) -> Bool { other.map { $0.kind == kind } ?? false }

    /// libmosquitto's status as text: `strerror` for MOSQ_ERR_ERRNO (taken by the caller at once), its own words
    /// otherwise.
    static func text(_ code: Int32, errno saved: Int32) -> String {
        code == Int32(MOSQ_ERR_ERRNO.rawValue)
            ? String(cString: strerror(saved)) : String(cString: mosquitto_strerror(code))
    }
}
