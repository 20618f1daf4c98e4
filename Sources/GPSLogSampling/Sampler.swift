// SPDX-License-Identifier: MIT
import GPSLogModel

/// Why a fix or heading was not stored.
public enum DropReason: String, Sendable, Equatable {
    case invalidPosition, insideInterval, tooInaccurate, tooClose, tooSoon, outOfOrder, headingUnchanged, noPositionYet
    /// The monitoring mode did not ask for an entry (nothing automatic in quiet and manual; move and significant
    /// not due yet).
    case notDue
}

/// What the sampler decided for one input.
public enum SampleDecision: Sendable, Equatable {
    /// Store this new entry.
    case newEntry(Entry)
    /// The fix is at the same place as the last location entry: add one to its InstanceCount (its new value given).
    case samePlace(instanceCount: Int)
    /// Not stored.
    case dropped(DropReason)
}

/// Turns a stream of fixes and headings into Entries rows, after GPS Log and Overland. A pure value type: no I/O,
/// no clock (it goes by the fixes' own times), so it is tested on its own and replays give the same session.
///
/// For each fix, in order:
/// 1. an invalid position (NaN, out of range) or a time earlier than the last accepted fix is dropped;
/// 2. a fix worse than `maxAccuracy` is dropped;
/// 3. a fix inside `interval` after the previous accepted fix is dropped (GPS Log's period gate), less a little
///    (`earliness`): a 1 Hz receiver's clock drifts (fixes 994 ms apart), and such a fix must not cost a whole
///    interval;
/// 4. a fix within `samePlaceRadius` of the last location entry, moving slower than `stationarySpeed`, is the same
///    place: that entry's InstanceCount grows instead of a row being written;
/// 5. `minDistance` and `minTime` (measured from the last location row) drop what is left too close or too soon;
/// 6. anything else becomes a new entry.
///
/// A heading that differs from the last recorded heading by more than `headingFilter` degrees (or the first one)
/// becomes a heading-change entry at the latest position (IsHeadingChanged = 1, Heading, HeadingTimeStamp).
///
/// With an OwnTracks monitoring mode (`policy.monitoring`), steps 4 and 5 and the headings give way to the mode's
/// rule, measured from the last entry by the fixes' own times (see `monitored`); entries carry the mode and what made
/// them (`Entry.monitoring`, `Entry.trigger`).
public struct Sampler: Sendable {
    /// The rules in force; a trip's settings or a server's `set` replace them while recording.
    public var policy: SamplingPolicy
    private var rng: SplitMix64
    /// The last location row written (after any instance-count changes).
    public private(set) var lastEntry: Entry?
    /// The newest valid fix seen, accepted or not: what `mark` marks.
    public private(set) var freshestFix: Fix?
    private var lastAcceptedTime: Timestamp?
    private var lastHeading: Double?

    /// - Parameters:
    ///   - policy: what to keep, from the `record` options.
    ///   - seed: seeds the entry ids (UUIDv7 random bits); the same seed and input give the same ids. Nil: a random
    ///     seed.
    public init(policy: SamplingPolicy, seed: UInt64? = nil) {
        self.policy = policy
        var system = SystemRandomNumberGenerator()
        rng = SplitMix64(seed: seed ?? system.next())
    }

    /// Decides what to do with a fix.
    public mutating func add(_ fix: Fix) -> SampleDecision {
        guard fix.hasPlausiblePosition else { return .dropped(.invalidPosition) }
        if let last = lastAcceptedTime, fix.time < last { return .dropped(.outOfOrder) }
        freshestFix = fix
        if let max = policy.maxAccuracy, let acc = fix.horizontalAccuracy, acc > max { return .dropped(.tooInaccurate) }
        if let last = lastAcceptedTime,
            fix.time.milliseconds - last.milliseconds < policy.intervalMilliseconds - earliness
        {
            return .dropped(.insideInterval)
        }
        if let mode = policy.monitoring { return monitored(fix, mode: mode) }
        if var previous = lastEntry {
            let d = Geo.distance(
                lat1: previous.latitude, lon1: previous.longitude, lat2: fix.latitude, lon2: fix.longitude)
            if d < policy.samePlaceRadius && (fix.speed ?? 0) < policy.stationarySpeed {
                lastAcceptedTime = fix.time
                previous.instanceCount += 1
                lastEntry = previous
                return .samePlace(instanceCount: previous.instanceCount)
            }
            if let min = policy.minDistance, d < min { return .dropped(.tooClose) }
            if let min = policy.minTimeMilliseconds, fix.time.milliseconds - previous.time.milliseconds < min {
                return .dropped(.tooSoon)
            }
        }
        lastAcceptedTime = fix.time
        let entry = Entry(id: Identifier.uuidV7(time: fix.time, using: &rng), fix: fix)
        lastEntry = entry
        return .newEntry(entry)
    }

    /// An entry at `fix` whatever the rules say, made by `trigger` (a region entered or left; nil: by the mode's own
    /// rule): it becomes the last entry, from which the rules measure.
    public mutating func report(_ fix: Fix, trigger: ReportTrigger?) -> Entry {
        lastAcceptedTime = fix.time
        freshestFix = fix
        var entry = Entry(id: Identifier.uuidV7(time: fix.time, using: &rng), fix: fix)
        entry.monitoring = policy.monitoring
        entry.trigger = trigger
        lastEntry = entry
        return entry
    }

    /// Takes a fix without sampling it (the automatic pause): it becomes the freshest fix, which a mark marks.
    public mutating func observe(_ fix: Fix) {
        guard fix.hasPlausiblePosition else { return }
        if let last = lastAcceptedTime, fix.time < last { return }
        freshestFix = fix
    }

    /// OwnTracks' rules: move writes an entry once the position moved `locatorDisplacement` or `locatorInterval`
    /// passed (with `.both`, once both hold); significant once at least 500 m moved and 5 minutes passed, and a ping
    /// when `pingInterval` passed without one; quiet and manual write nothing of their own. The first fix of a
    /// session is always an entry in move and significant.
    private mutating func monitored(_ fix: Fix, mode: MonitoringMode) -> SampleDecision {
        func entry(_ trigger: ReportTrigger?) -> SampleDecision { .newEntry(report(fix, trigger: trigger)) }
        guard mode == .move || mode == .significant else { return .dropped(.notDue) }
        guard let previous = lastEntry else { return entry(nil) }
        let moved = Geo.distance(
            lat1: previous.latitude, lon1: previous.longitude, lat2: fix.latitude, lon2: fix.longitude)
        let elapsed = fix.time.milliseconds - previous.time.milliseconds
        if mode == .move {
            let far = moved >= policy.locatorDisplacement
            let late = elapsed >= policy.locatorIntervalMilliseconds
            switch policy.locatorRule {
            case .either where far: return entry(nil)
            case .either where late: return entry(.timer)
            case .both where far && late: return entry(nil)
            default: return .dropped(.notDue)
            }
        }
        if moved >= SamplingPolicy.significantDistance && elapsed >= SamplingPolicy.significantIntervalMilliseconds {
            return entry(nil)
        }
        if let ping = policy.pingIntervalMilliseconds, elapsed >= ping { return entry(.ping) }
        return .dropped(.notDue)
    }

    /// How early a fix may come in the interval and still be taken: a tenth of it, at most 40 ms. Enough for a
    /// receiver's drift; less than the gap between a 20 Hz receiver's fixes, so that a fast receiver's interval
    /// does not shrink by one fix's gap.
    private var earliness: Int64 { min(policy.intervalMilliseconds / 10, 40) }

    /// Forgets the last entry and time, keeping the id generator: the next fix is a new entry whatever came before
    /// (the first fix of a new session, or of a new timeline the `FixGate` believed).
    public mutating func startOver() {
        lastEntry = nil
        lastAcceptedTime = nil
    }

    /// Decides what to do with a heading reading.
    public mutating func add(_ reading: HeadingReading) -> SampleDecision {
        guard reading.degrees.isFinite else { return .dropped(.invalidPosition) }
        // OwnTracks' modes report positions only.
        guard policy.monitoring == nil else { return .dropped(.notDue) }
        guard let position = freshestFix else { return .dropped(.noPositionYet) }
        let degrees = Geo.normalizedDegrees(reading.degrees)
        if let last = lastHeading, Geo.angleBetween(last, degrees) <= policy.headingFilter {
            return .dropped(.headingUnchanged)
        }
        lastHeading = degrees
        let time = max(reading.time, position.time)
        var entry = Entry(
            id: Identifier.uuidV7(time: time, using: &rng), latitude: position.latitude, longitude: position.longitude,
            altitude: position.altitude, time: time, heading: degrees, isHeadingChanged: true, headingTime: reading.time
        )
        entry.horizontalAccuracy = position.horizontalAccuracy
        return .newEntry(entry)
    }

    /// A mark entry at the freshest fix (not the last sample), with a label.
    public mutating func mark(label: String?) -> Entry? {
        guard let fix = freshestFix else { return nil }
        var mark = Entry(id: Identifier.uuidV7(time: fix.time, using: &rng), fix: fix, marked: true, label: label)
        mark.monitoring = policy.monitoring
        mark.trigger = .user
        return mark
    }

    /// A fresh entry id for an entry at `time` (manual marks, imports).
    public mutating func makeID(time: Timestamp) -> String {
        Identifier.uuidV7(time: time, using: &rng)
    }
}
