// SPDX-License-Identifier: MIT
import NIOConcurrencyHelpers

/// How many wrong logins (tokens, or user names and passwords) an address may give at `/login`, whatever the user
/// names it tries: `maxFailures` within `window`, then it is refused (429, with
/// the seconds to wait) until the oldest of them is older than `window`. A right login does not clear the count, so
/// guessing between right answers gains nothing. Memory stays bounded: at most `maxAddresses` addresses are
/// remembered, the stalest forgotten first.
final class LoginThrottle: Sendable {
    let maxFailures: Int
    let window: Duration
    static let maxAddresses = 10_000

    private let failures = NIOLockedValueBox([String: [ContinuousClock.Instant]]())

    init(maxFailures: Int = 5, window: Duration = .seconds(60)) {
        self.maxFailures = maxFailures
        self.window = window
    }

    /// Whole seconds `address` must wait before it may try again; nil when it may try now.
    func retryAfter(_ address: String, now: ContinuousClock.Instant = .now) -> Int? {
        failures.withLockedValue { all in
            let recent = (all[address] ?? []).filter { now - $0 < window }
            all[address] = recent.isEmpty ? nil : recent
            guard recent.count >= maxFailures, let oldest = recent.first else { return nil }
            let wait = window - (now - oldest)
            return max(
                1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up)))
        }
    }

    /// Counts a wrong login from `address`.
    func failed(_ address: String, now: ContinuousClock.Instant = .now) {
        failures.withLockedValue { all in
            if all[address] == nil && all.count >= Self.maxAddresses {
                // Forget the addresses whose failures are over, else the one that failed longest ago.
                all = all.filter { $0.value.contains { now - $0 < window } }
                if all.count >= Self.maxAddresses, let stalest = all.min(by: { $0.value.last! < $1.value.last! })?.key {
                    all[stalest] = nil
                }
            }
            var list = (all[address] ?? []).filter { now - $0 < window }
            list.append(now)
            all[address] = Array(list.suffix(maxFailures))
        }
    }
}
