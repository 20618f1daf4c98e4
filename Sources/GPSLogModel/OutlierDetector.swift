// SPDX-License-Identifier: MIT

/// What makes a track point an outlier for `gpslog delete --outliers`.
public struct OutlierRules: Sendable, Equatable {
    /// The fastest believable movement between two track points, metres per second. A point the track jumps to
    /// faster than this, and back from, is a spike.
    public var maxSpeed: Double
    /// Points whose horizontal accuracy is worse (larger) than this many metres; nil: accuracy is not judged.
    public var maxAccuracy: Double?

    /// The default: 1,000 km/h, past any car, boat or train (an airliner's ground speed in a jet stream can reach
    /// it), while the jumps a receiver makes (kilometres in a second) are far beyond it.
    public static let defaultMaxSpeed = 1_000 / 3.6

    /// Rules with a speed limit in metres per second (1,000 km/h by default) and an accuracy limit (none by default).
    public init(maxSpeed: Double = OutlierRules.defaultMaxSpeed, maxAccuracy: Double? = nil) {
        self.maxSpeed = maxSpeed
        self.maxAccuracy = maxAccuracy
    }
}

/// Finds the outliers of a track fed to it in track order, holding only the few points not yet decided.
///
/// - 0°, 0° (a receiver's "no position") and an accuracy worse than the rules allow are outliers at once, and the
///   track is judged without them.
/// - A spike: the track leaves its last good point faster than `maxSpeed` and comes back. Points that jump are held;
///   the next point near enough to the last good one (reachable at `maxSpeed`) makes them outliers. Three points in
///   a row that agree with each other after a jump make the jump real (the receiver was off, or the points before
///   were wrong): they are kept, and if the track before them was shorter than three points, that part was the
///   spike (a bad first fix).
/// - Reachable means the distance less both points' accuracies (when known) covered at `maxSpeed` in the time
///   between them, so a slow walker's scatter is not a jump. Two points at the same time are not judged (an untimed
///   track has all its points at one time).
///
/// Why written here: no library at hand judges tracks; GPSBabel's `discard` filter drops by accuracy and DOP only,
/// and Traccar's filters compare each point with the previous one alone, which deletes the point after a spike too.
public struct OutlierDetector {
    /// A track point as the detector sees it.
    public struct Point: Sendable, Equatable {
        /// The entry's row key.
        public var key: Int64
        /// Milliseconds since the Unix epoch, UTC.
        public var time: Int64
        /// Degrees north, WGS 84.
        public var latitude: Double
        /// Degrees east, WGS 84.
        public var longitude: Double
        /// Horizontal accuracy in metres; nil when the entry has none.
        public var accuracy: Double?
        /// Carried for the caller: whether the point starts a segment of its track.
        public var startsSegment: Bool

        /// Creates a point from its parts.
        public init(
            key: Int64, time: Int64, latitude: Double, longitude: Double, accuracy: Double?, startsSegment: Bool = false
        ) {
            self.key = key
            self.time = time
            self.latitude = latitude
            self.longitude = longitude
            self.accuracy = accuracy
            self.startsSegment = startsSegment
        }
    }

    /// Why a point is an outlier.
    public enum Reason: String, Sendable, CaseIterable {
        case nullIsland = "at 0°, 0°"
        case accuracy = "accuracy worse than the limit"
        case jump = "a jump faster than the limit"
    }

    /// How many points in a row that agree make a jump real.
    public static let confirmation = 3

    /// The limits points are judged by.
    public let rules: OutlierRules
    /// The points since the last real jump (or the start), only while fewer than `confirmation`: they become
    /// outliers if a real jump follows. After that, only the last.
    private var run: [Point] = []
    private var established = false
    /// Points that jumped from the last good point, not yet judged.
    private var pending: [Point] = []

    /// A detector that has seen no point yet.
    public init(rules: OutlierRules) { self.rules = rules }

    /// Judges the next track point; returns the points now known to be outliers (this one or earlier ones).
    public mutating func feed(_ p: Point) -> [(Point, Reason)] {
        if p.latitude == 0 && p.longitude == 0 { return [(p, .nullIsland)] }
        if let limit = rules.maxAccuracy, let accuracy = p.accuracy, accuracy > limit { return [(p, .accuracy)] }
        guard let anchor = run.last else {
            run = [p]
            return []
        }
        var outliers: [(Point, Reason)] = []
        if reachable(anchor, p) {
            // Back near the track (or never left): what jumped away was a spike.
            outliers = pending.map { ($0, .jump) }
            pending = []
            accept(p)
            return outliers
        }
        if let last = pending.last, !reachable(last, p) {
            // Away from the track and from the points held: those were a spike of their own.
            outliers = pending.map { ($0, .jump) }
            pending = []
        }
        pending.append(p)
        if pending.count >= Self.confirmation {
            // The jump is real. A track of fewer points before it was the wrong part.
            if !established { outliers += run.map { ($0, .jump) } }
            run = [pending.last!]
            established = true
            pending = []
        }
        return outliers
    }

    /// Ends the track: points still held after the last good one are a spike at its end, unless the track never had
    /// three agreeing points (then nothing says which part is wrong, and they stay).
    public mutating func finish() -> [(Point, Reason)] {
        defer { pending = [] }
        return established ? pending.map { ($0, .jump) } : []
    }

    private mutating func accept(_ p: Point) {
        if established {
            run = [p]
        } else {
            run.append(p)
            if run.count >= Self.confirmation {
                established = true
                run = [p]
            }
        }
    }

    /// Whether `b` can follow `a` at the rules' speed, the accuracies allowed for.
    private func reachable(_ a: Point, _ b: Point) -> Bool {
        let metres = Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
        let slack = (a.accuracy ?? 0) + (b.accuracy ?? 0)
        let seconds = Double(abs(b.time - a.time)) / 1000
        // Points at the same time say nothing of speed: an untimed track (all its points at the file's time) is
        // not judged by it.
        return seconds == 0 || max(0, metres - slack) <= rules.maxSpeed * seconds
    }
}
