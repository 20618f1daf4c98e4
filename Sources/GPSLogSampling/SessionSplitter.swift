// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// When a recording that never gets a `stop` starts a new session (`record --split`). Every rule goes by the fixes'
/// own times: a board without a real-time clock has no other time worth reading.
public struct SplitRules: Sendable, Equatable {
    /// A new session when no fix came for this long (the engine was off).
    public var gapMilliseconds: Int64?
    /// A new session when the receiver moves again after standing still this long (parked with the power on).
    public var stopMilliseconds: Int64?
    /// A new session at midnight in `timeZone`.
    public var daily = false
    /// The zone of "midnight" and of session names.
    public var timeZone: TimeZone

    /// Rules from their parts; by default none is set, and the zone is the system's.
    public init(
        gapMilliseconds: Int64? = nil, stopMilliseconds: Int64? = nil, daily: Bool = false,
        timeZone: TimeZone = .current
    ) {
        self.gapMilliseconds = gapMilliseconds
        self.stopMilliseconds = stopMilliseconds
        self.daily = daily
        self.timeZone = timeZone
    }

    /// True when some rule is set.
    public var splits: Bool { gapMilliseconds != nil || stopMilliseconds != nil || daily }
}

/// Why a session was split.
public enum SplitReason: String, Sendable, Equatable {
    case gap, stop, daily
    /// A trip started or ended (`gpslog trip start`, `trip stop`, or the automatic pause).
    case trip
}

/// Decides, fix by fix (after the `FixGate`), whether the fix starts a new session.
///
/// Standing still is measured from the first fix of a stop: a fix is movement when it is farther than `stopRadius`
/// from there. That is wider than the sampler's same-place radius on purpose: a parked receiver with a poor view of
/// the sky wanders tens of metres, with speeds of a knot (measured on a real capture: the SignalK log, 4 satellites,
/// HDOP 3, wanders 29 m in 20 minutes at up to 1.1 kn), and a stop must survive that to be a stop; 50 m away, the
/// receiver has left.
public struct SessionSplitter: Sendable {
    /// When to split.
    public let rules: SplitRules
    /// How far from where it stopped a receiver must be to have moved on: the same-place radius, at least 50 m.
    public let stopRadius: Double
    private var lastFix: Fix?
    /// Where and since when the receiver has stood still.
    private var stop: Fix?
    /// The local day (days since 1970-01-01 in the zone) of the current session's first fix.
    private var sessionDay: Int64?

    /// A splitter that has seen no fix yet; `policy` gives the same-place radius.
    public init(rules: SplitRules, policy: SamplingPolicy) {
        self.rules = rules
        stopRadius = max(policy.samePlaceRadius, 50)
    }

    /// Takes the next fix; returns why it starts a new session, or nil when it belongs to the current one.
    public mutating func check(_ fix: Fix) -> SplitReason? {
        defer { lastFix = fix }
        var reason: SplitReason?
        if let gap = rules.gapMilliseconds, let last = lastFix, fix.time.milliseconds - last.time.milliseconds >= gap {
            reason = .gap
        }
        if let stop {
            if isMovement(fix, from: stop) {
                if reason == nil, let limit = rules.stopMilliseconds,
                    fix.time.milliseconds - stop.time.milliseconds >= limit
                {
                    reason = .stop
                }
                self.stop = fix
            }
        } else {
            stop = fix
        }
        let day = localDay(fix.time)
        if reason == nil, rules.daily, let current = sessionDay, day != current { reason = .daily }
        if reason != nil || sessionDay == nil { sessionDay = day }
        if reason != nil { stop = fix }
        return reason
    }

    private func isMovement(_ fix: Fix, from place: Fix) -> Bool {
        Geo.distance(lat1: place.latitude, lon1: place.longitude, lat2: fix.latitude, lon2: fix.longitude)
            >= stopRadius
    }

    /// Days since 1970-01-01 in the rules' zone.
    func localDay(_ t: Timestamp) -> Int64 {
        let offset = Int64(rules.timeZone.offsetSeconds(at: t))
        return (t.milliseconds + offset * 1000).floorDiv(86_400_000)
    }
}

/// A session name from the time of its first fix: `strftime`-like fields (`%Y %m %d %H %M %S %j %F %R %%`, and
/// `%z` for the zone's offset) filled in the zone. Without a field the name is used as written.
public struct SessionNameTemplate: Sendable, Equatable {
    /// The pattern as given, fields and all.
    public let pattern: String
    /// The zone the fields are filled in.
    public let timeZone: TimeZone

    /// GPS Log names a session after its start time when none is given.
    public static let defaultPattern = "%Y-%m-%d %H:%M"

    /// A template of `pattern`, read in `timeZone`.
    public init(_ pattern: String, timeZone: TimeZone) {
        self.pattern = pattern
        self.timeZone = timeZone
    }

    /// True when the pattern has a field to fill.
    public var hasFields: Bool {
        pattern.contains { $0 == "%" }
    }

    /// The name for a session whose first fix is at `t`.
    public func name(at t: Timestamp) -> String {
        let offset = timeZone.offsetSeconds(at: t)
        let c = Timestamp(milliseconds: t.milliseconds + Int64(offset) * 1000).components
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var out = ""
        var percent = false
        for ch in pattern {
            guard percent else {
                if ch == "%" { percent = true } else { out.append(ch) }
                continue
            }
            percent = false
            switch ch {
            case "Y": out += String(c.year)
            case "m": out += two(c.month)
            case "d": out += two(c.day)
            case "H": out += two(c.hour)
            case "M": out += two(c.minute)
            case "S": out += two(c.second)
            case "F": out += "\(c.year)-\(two(c.month))-\(two(c.day))"
            case "R": out += "\(two(c.hour)):\(two(c.minute))"
            case "j":
                let dayOfYear =
                    Timestamp.days(year: c.year, month: c.month, day: c.day)
                    - Timestamp.days(year: c.year, month: 1, day: 1) + 1
                out += String(repeating: "0", count: dayOfYear < 10 ? 2 : dayOfYear < 100 ? 1 : 0) + "\(dayOfYear)"
            case "z":
                let minutes = abs(offset) / 60
                out += (offset < 0 ? "-" : "+") + two(minutes / 60) + two(minutes % 60)
            case "%": out.append("%")
            default: out += "%\(ch)"  // not a field: kept as written
            }
        }
        if percent { out.append("%") }
        return out
    }
}

extension TimeZone {
    /// The zone's offset from UTC, in seconds, at `t` (summer time included).
    func offsetSeconds(at t: Timestamp) -> Int {
        secondsFromGMT(for: Date(timeIntervalSince1970: Double(t.milliseconds) / 1000))
    }
}

extension Int64 {
    /// Division rounding towards minus infinity (days before 1970 stay on their own day).
    func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}

/// How a recording's sessions are named.
public enum SessionNaming: Sendable, Equatable {
    /// This name.
    case fixed(String)
    /// Filled from each session's first fix.
    case template(SessionNameTemplate)

    /// The name of a session whose first fix is at `t`.
    public func name(at t: Timestamp) -> String {
        switch self {
        case .fixed(let name): return name
        case .template(let template): return template.name(at: t)
        }
    }
}
