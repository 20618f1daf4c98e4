// SPDX-License-Identifier: MIT
import GPSLogSampling

/// The sampling rules a recording applies now, for `status --json`: the `record` options, as a server's `set`
/// may have changed them.
public struct SamplingStatus: Codable, Sendable, Equatable {
    /// `--interval`, in seconds.
    public var intervalSeconds: Double
    /// `--min-distance` in metres; nil: off.
    public var minDistance: Double?
    /// `--min-time` in seconds; nil: off.
    public var minTimeSeconds: Double?
    /// `--max-accuracy` in metres; nil: off.
    public var maxAccuracy: Double?
    /// `--pause-when-stopped` in seconds; nil: off.
    public var pauseAfterSeconds: Double?
    /// `--resume-radius` in metres, when the pause is on.
    public var resumeRadius: Double?
    /// `--visits`.
    public var visits: Bool

    /// The rules of `policy`, with the pause and visits of `stays` (nil: neither on), in seconds and metres.
    public init(_ policy: SamplingPolicy, stays: StayRules?) {
        intervalSeconds = Double(policy.intervalMilliseconds) / 1000
        minDistance = policy.minDistance
        minTimeSeconds = policy.minTimeMilliseconds.map { Double($0) / 1000 }
        maxAccuracy = policy.maxAccuracy
        pauseAfterSeconds = stays?.pauseAfterMilliseconds.map { Double($0) / 1000 }
        resumeRadius = stays?.pauseAfterMilliseconds == nil ? nil : stays?.resumeRadius
        visits = stays?.visits ?? false
    }
}
