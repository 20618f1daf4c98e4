// SPDX-License-Identifier: MIT
import GPSLogModel

/// What the sampler keeps, from the `record` options.
public struct SamplingPolicy: Sendable, Equatable {
    /// One entry per interval: a fix less than this many milliseconds after the previous accepted fix is dropped
    /// (GPS Log's period gate). 0 keeps every fix.
    public var intervalMilliseconds: Int64
    /// Drop a fix closer than this many metres to the last stored location entry (Overland's min distance).
    public var minDistance: Double?
    /// Drop a fix less than this many milliseconds after the last stored location row (Overland's min time;
    /// unlike the interval, repeats folded into an instance count do not restart it).
    public var minTimeMilliseconds: Int64?
    /// Drop a fix whose horizontal error is worse (larger) than this many metres; fixes of unknown accuracy pass.
    public var maxAccuracy: Double?
    /// Radius in metres of "the same place" for instance counts (see `Sampler`).
    public var samePlaceRadius: Double
    /// Speed in m/s at or above which a fix is never "the same place", whatever the distance.
    public var stationarySpeed: Double
    /// A heading that moves more than this many degrees from the last recorded one writes a heading-change entry.
    public var headingFilter: Double
    /// The fastest believable speed in m/s: a fix implying more is held back (`FixGate`); nil: no limit.
    public var maxSpeed: Double?
    /// OwnTracks' monitoring mode, which replaces the same-place, min-distance and min-time rules with its own (see
    /// `Sampler`); nil: GPS Log's interval sampling.
    public var monitoring: MonitoringMode?
    /// Move mode: metres moved since the last entry that make a new one (OwnTracks' `locatorDisplacement`).
    public var locatorDisplacement: Double = 100
    /// Move mode: milliseconds since the last entry that make a new one (OwnTracks' `locatorInterval`).
    public var locatorIntervalMilliseconds: Int64 = 300_000
    /// Move mode: whether the displacement or the interval is enough (iOS), or both must hold (Android).
    public var locatorRule: LocatorRule = .either
    /// Significant mode: milliseconds without an entry after which a ping entry is written; nil: no pings.
    public var pingIntervalMilliseconds: Int64? = SamplingPolicy.defaultPingIntervalMilliseconds

    /// Default radius for "the same place": 3 m is about the 50 % circular error of a consumer GNSS receiver in open
    /// sky (u-blox M8/M9 class: 2.0-2.5 m CEP), so a receiver at rest mostly wanders inside it.
    public static let defaultSamePlaceRadius = 3.0
    /// Default speed limit for "the same place": 0.5 m/s is above the speed noise of a receiver at rest
    /// (0.1-0.3 m/s) and well below walking pace (1.4 m/s), so slow movement is never folded away.
    public static let defaultStationarySpeed = 0.5
    /// Default speed limit, 125 m/s (450 km/h): above any car, boat, train or walker (the fastest train in service,
    /// Shanghai's maglev, runs at 431 km/h), far below the jumps of a multipath or cold-start fix. `--mode plane`
    /// turns it off.
    public static let defaultMaxSpeed = 125.0
    /// Significant mode's distance: Apple's significant-change service reports "at least 500 meters" moved.
    public static let significantDistance = 500.0
    /// Significant mode's spacing: Apple's service reports "at most once every 5 minutes".
    public static let significantIntervalMilliseconds: Int64 = 300_000
    /// Pings every 15 minutes without an entry: OwnTracks Android's ping period (and its minimum).
    public static let defaultPingIntervalMilliseconds: Int64 = 900_000

    /// A policy from its parts; the defaults keep one fix a second with no distance, time or accuracy limit.
    public init(
        intervalMilliseconds: Int64 = 1000, minDistance: Double? = nil, minTimeMilliseconds: Int64? = nil,
        maxAccuracy: Double? = nil, samePlaceRadius: Double = SamplingPolicy.defaultSamePlaceRadius,
        stationarySpeed: Double = SamplingPolicy.defaultStationarySpeed, headingFilter: Double = 5,
        maxSpeed: Double? = SamplingPolicy.defaultMaxSpeed
    ) {
        self.intervalMilliseconds = intervalMilliseconds
        self.minDistance = minDistance
        self.minTimeMilliseconds = minTimeMilliseconds
        self.maxAccuracy = maxAccuracy
        self.samePlaceRadius = samePlaceRadius
        self.stationarySpeed = stationarySpeed
        self.headingFilter = headingFilter
        self.maxSpeed = maxSpeed
    }
}

/// How move mode combines its displacement and interval.
public enum LocatorRule: String, Sendable, Equatable, CaseIterable {
    /// An entry once either holds, whichever comes first (OwnTracks iOS).
    case either
    /// An entry only once both hold (OwnTracks Android: "an `and` relationship with interval").
    case both
}

/// Overland's Trip Settings: what sampling a running trip uses instead of the main settings; a nil field keeps the
/// main value. They apply when a trip starts and revert when it ends.
public struct TripSampling: Sendable, Equatable {
    /// The trip's interval in milliseconds; nil keeps the main one.
    public var intervalMilliseconds: Int64?
    /// The trip's min distance in metres; nil keeps the main one.
    public var minDistance: Double?
    /// The trip's min time in milliseconds; nil keeps the main one.
    public var minTimeMilliseconds: Int64?
    /// The trip's accuracy limit in metres; nil keeps the main one.
    public var maxAccuracy: Double?

    /// Trip settings from their parts; nil fields keep the main values.
    public init(
        intervalMilliseconds: Int64? = nil, minDistance: Double? = nil, minTimeMilliseconds: Int64? = nil,
        maxAccuracy: Double? = nil
    ) {
        self.intervalMilliseconds = intervalMilliseconds
        self.minDistance = minDistance
        self.minTimeMilliseconds = minTimeMilliseconds
        self.maxAccuracy = maxAccuracy
    }

    /// The main policy with the trip's settings over it.
    public func applied(to main: SamplingPolicy) -> SamplingPolicy {
        var policy = main
        if let intervalMilliseconds { policy.intervalMilliseconds = intervalMilliseconds }
        if let minDistance { policy.minDistance = minDistance }
        if let minTimeMilliseconds { policy.minTimeMilliseconds = minTimeMilliseconds }
        if let maxAccuracy { policy.maxAccuracy = maxAccuracy }
        return policy
    }
}
