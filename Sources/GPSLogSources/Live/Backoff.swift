// SPDX-License-Identifier: MIT

/// The waits between attempts to reach a receiver that went away: `initial`, doubling up to `maximum`, and back to
/// `initial` once the receiver answers again.
///
/// A serial device waits 0.5 s doubling to 5 s (a USB receiver that resets on a voltage dip is back within seconds,
/// and probing a path costs nothing); gpsd waits 0.25 s doubling to 30 s.
public struct Backoff: Sendable, Equatable {
    /// The first wait, and the wait after a `reset()`.
    public let initial: Duration
    /// The longest wait.
    public let maximum: Duration
    private var current: Duration

    /// A schedule from `initial` doubling up to `maximum`.
    public init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        current = initial
    }

    /// For a serial device: 0.5 s doubling to 5 s.
    public static let device = Backoff(initial: .milliseconds(500), maximum: .seconds(5))
    /// For gpsd: 0.25 s doubling to 30 s.
    public static let daemon = Backoff(initial: .milliseconds(250), maximum: .seconds(30))

    /// The wait before the next attempt; each call doubles the one after, up to `maximum`.
    public mutating func next() -> Duration {
        defer { current = min(current * 2, maximum) }
        return current
    }

    /// The receiver answered: the next wait is `initial` again.
    public mutating func reset() { current = initial }

    /// A wait in seconds, for messages.
    public static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
