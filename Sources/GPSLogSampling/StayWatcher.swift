// SPDX-License-Identifier: MIT
import GPSLogModel

/// Overland's automatic pause and visits, for a recorder (`record --pause-when-stopped`, `--resume-radius`,
/// `--visits`).
public struct StayRules: Sendable, Equatable {
    /// Stop writing entries after standing still this long; nil: never (Overland's "Pause Updates Automatically").
    public var pauseAfterMilliseconds: Int64?
    /// Resume at the first fix farther than this from where the pause began (Overland's "Resume with Geofence").
    public var resumeRadius: Double
    /// Record visits: an arrival after `visitAfterMilliseconds` standing still, and the departure.
    public var visits: Bool
    /// How long standing still makes an arrival: Overland's visits come "after about 3 minutes".
    public var visitAfterMilliseconds: Int64 = 180_000

    /// Overland's default geofence, 100 m.
    public static let defaultResumeRadius = 100.0
    /// Overland pauses "about 10 minutes after you've stopped moving"; a server's `pause_automatically: true`.
    public static let defaultPauseAfterMilliseconds: Int64 = 600_000

    /// Rules from their parts: no pause and no visits unless asked, a resume radius of 100 m by default.
    public init(
        pauseAfterMilliseconds: Int64? = nil, resumeRadius: Double = StayRules.defaultResumeRadius, visits: Bool = false
    ) {
        self.pauseAfterMilliseconds = pauseAfterMilliseconds
        self.resumeRadius = resumeRadius
        self.visits = visits
    }

    /// True when some rule is on.
    public var watches: Bool { pauseAfterMilliseconds != nil || visits }
}

/// What the stay watcher saw at one fix, in Overland's terms.
public enum StayEvent: Sendable, Equatable {
    /// Overland's `paused_location_updates`: standing still for the pause time; no entries from here.
    case paused(Fix)
    /// Overland's `exited_pause_region` then `resumed_location_updates`: the first fix outside the geofence.
    case resumed(Fix)
    /// Overland's visit with no departure yet.
    case arrived(Visit)
    /// The visit, now with its departure.
    case departed(Visit)
}

/// Watches, fix by fix (after the `FixGate`, by the fixes' own times), how long the receiver stands still, for the
/// automatic pause and visits.
///
/// Standing still is measured as the session splitter measures it: from the first fix of a stay, within the stop
/// radius (the same-place radius, at least 50 m; a parked receiver under a poor sky wanders tens of metres). The
/// pause ends only outside the resume radius around the fix that paused, as Overland's geofence does.
public struct StayWatcher: Sendable {
    /// The rules in force; `update(rules:)` changes them.
    public private(set) var rules: StayRules
    /// How far from where it stopped a receiver must be to have moved on: the same-place radius, at least 50 m.
    public let stopRadius: Double
    /// Where the pause began; nil while not paused.
    public private(set) var pausedAt: Fix?
    /// The visit under way, once arrived.
    public private(set) var visit: Visit?
    private var stay: Stay?
    /// Since when the pause clock runs: the stay's first fix, or the resume when that came later (a resume radius
    /// smaller than the stop radius must not pause again at the next fix).
    private var stillSince: Timestamp?

    /// A stay's first fix and the running mean of its fixes.
    private struct Stay {
        var first: Fix
        var count = 1
        var latitudeSum: Double
        var longitudeSum: Double
        var worstAccuracy: Double
        /// The stay's fixes until an arrival (three minutes of them at most), to measure its spread then.
        var fixes: [Fix]

        init(_ fix: Fix) {
            first = fix
            latitudeSum = fix.latitude
            longitudeSum = fix.longitude
            worstAccuracy = fix.horizontalAccuracy ?? 0
            fixes = [fix]
        }

        var latitude: Double { latitudeSum / Double(count) }
        var longitude: Double { longitudeSum / Double(count) }
    }

    /// A watcher that has seen no fix yet; `policy` gives the same-place radius.
    public init(rules: StayRules, policy: SamplingPolicy) {
        self.rules = rules
        stopRadius = max(policy.samePlaceRadius, 50)
    }

    /// Changes the rules from the next fix on (a server's `set`); a pause turned off ends at once, without a
    /// resume record.
    public mutating func update(rules: StayRules) {
        self.rules = rules
        if rules.pauseAfterMilliseconds == nil { pausedAt = nil }
        if !rules.visits { visit = nil }
    }

    /// True while the automatic pause holds.
    public var isPaused: Bool { pausedAt != nil }

    /// Takes the next fix; returns what it changed, in order.
    public mutating func add(_ fix: Fix) -> [StayEvent] {
        var events: [StayEvent] = []
        if let pausedAt, Self.distance(pausedAt, fix) > rules.resumeRadius {
            self.pausedAt = nil
            stillSince = fix.time
            events.append(.resumed(fix))
        }
        if var current = stay, Self.distance(current.first, fix) < stopRadius {
            current.count += 1
            current.latitudeSum += fix.latitude
            current.longitudeSum += fix.longitude
            current.worstAccuracy = max(current.worstAccuracy, fix.horizontalAccuracy ?? 0)
            if rules.visits && visit == nil { current.fixes.append(fix) }
            stay = current
        } else {
            if var ended = visit, let whole = stay {
                // The place measured over the whole stay, not only its first three minutes.
                ended.latitude = whole.latitude
                ended.longitude = whole.longitude
                ended.horizontalAccuracy = max(ended.horizontalAccuracy, whole.worstAccuracy)
                ended.departure = fix.time
                events.append(.departed(ended))
                visit = nil
            }
            stay = Stay(fix)
            stillSince = fix.time
        }
        guard let current = stay else { return events }
        let still = fix.time.milliseconds - current.first.time.milliseconds
        if rules.visits, visit == nil, still >= rules.visitAfterMilliseconds {
            let spread =
                current.fixes.map {
                    Geo.distance(lat1: current.latitude, lon1: current.longitude, lat2: $0.latitude, lon2: $0.longitude)
                }.max() ?? 0
            let arrived = Visit(
                latitude: current.latitude, longitude: current.longitude,
                horizontalAccuracy: max(spread, current.worstAccuracy), arrival: current.first.time, departure: nil)
            visit = arrived
            stay?.fixes = []
            events.append(.arrived(arrived))
        }
        if let after = rules.pauseAfterMilliseconds, pausedAt == nil, let since = stillSince,
            fix.time.milliseconds - since.milliseconds >= after
        {
            pausedAt = fix
            events.append(.paused(fix))
        }
        return events
    }

    static func distance(_ a: Fix, _ b: Fix) -> Double {
        Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
    }
}
