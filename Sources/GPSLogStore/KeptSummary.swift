// SPDX-License-Identifier: MIT
import GPSLogModel

/// A session's figures as the SessionSummaries table keeps them (see `Schema/019_session_summaries.sql`): what
/// `SessionSummary` shows, plus the track's last point, where the next appended point's step starts.
///
/// Every figure is exact under any order of writes: counts and sums of whole numbers, minima and maxima, and the
/// length as whole nanometres (each step rounded, then summed), so the kept row equals a recount bit for bit.
public struct KeptSummary: Equatable, Sendable {
    /// A track point as the length needs it: its place in track order (TimeStamp, Key) and its position.
    struct TrackPoint: Equatable, Sendable {
        var key: Int64
        var time: Int64
        var latitude: Double
        var longitude: Double

        /// Whether it comes before `other` in track order.
        func precedes(_ other: TrackPoint) -> Bool { (time, key) < (other.time, other.key) }
    }

    /// Every entry.
    public var entryCount = 0
    /// Track points: not marks, not heading changes.
    public var trackPoints = 0
    /// Marks.
    public var marks = 0
    /// Heading changes.
    public var headingChanges = 0
    /// The fixes the track points stand for (their instance counts).
    public var fixes = 0
    /// The first track point's time, gpslog milliseconds.
    public var firstTime: Int64?
    /// The last track point's time.
    public var lastTime: Int64?
    /// The box of every entry but heading changes: south.
    public var minLatitude: Double?
    /// North.
    public var maxLatitude: Double?
    /// West.
    public var minLongitude: Double?
    /// East.
    public var maxLongitude: Double?
    /// The top speed of every entry but heading changes, m/s.
    public var maxSpeed: Double?
    /// The track's length: each great-circle step rounded to nanometres, summed.
    public var lengthNanometres: Int64 = 0
    /// The track's last point in track order; nil while the track is empty.
    var last: TrackPoint?

    /// No figures yet (an empty session).
    public init() {}

    /// One step of the track: the great-circle distance, rounded to the nanometre (whole numbers add up the same in
    /// any order; a 30M-entry track is off its unrounded sum by at most 15 mm).
    static func step(_ a: TrackPoint, _ b: TrackPoint) -> Int64 {
        Int64((Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude) * 1e9).rounded())
    }

    /// Counts one row, whatever its place in time (everything but the length and `last`), as the SQL of a recount
    /// would: marks and heading changes are counted each on its own (a row may be both), the track is the rest; the
    /// bounding box and the highest speed take every row but heading changes. A NaN is SQL's NULL.
    mutating func count(
        time: Int64, latitude: Double, longitude: Double, speed: Double?, marked: Bool, headingChanged: Bool,
        instanceCount: Int
    ) {
        entryCount += 1
        if marked { marks += 1 }
        if headingChanged {
            headingChanges += 1
            return
        }
        minLatitude = Swift.min(minLatitude ?? latitude, latitude)
        maxLatitude = Swift.max(maxLatitude ?? latitude, latitude)
        minLongitude = Swift.min(minLongitude ?? longitude, longitude)
        maxLongitude = Swift.max(maxLongitude ?? longitude, longitude)
        if let speed, !speed.isNaN { maxSpeed = Swift.max(maxSpeed ?? speed, speed) }
        guard !marked else { return }
        trackPoints += 1
        fixes += instanceCount
        firstTime = Swift.min(firstTime ?? time, time)
        lastTime = Swift.max(lastTime ?? time, time)
    }

    /// The figures `SessionSummary` shows.
    public func apply(to summary: inout SessionSummary) {
        summary.entryCount = entryCount
        summary.trackPointCount = trackPoints
        summary.markCount = marks
        summary.headingChangeCount = headingChanges
        summary.fixCount = fixes
        summary.distance = Double(lengthNanometres) / 1e9
        summary.firstTime = firstTime.map { Timestamp(milliseconds: $0) }
        summary.lastTime = lastTime.map { Timestamp(milliseconds: $0) }
        summary.minLatitude = minLatitude
        summary.maxLatitude = maxLatitude
        summary.minLongitude = minLongitude
        summary.maxLongitude = maxLongitude
        summary.maxSpeed = maxSpeed
    }

    /// The names of the figures that differ from `other`'s, in the table's words (what `gpslog check` reports).
    func differences(from other: KeptSummary) -> [String] {
        var names: [String] = []
        func compare<T: Equatable>(_ name: String, _ a: T, _ b: T) { if a != b { names.append(name) } }
        compare("EntryCount", entryCount, other.entryCount)
        compare("TrackPoints", trackPoints, other.trackPoints)
        compare("Marks", marks, other.marks)
        compare("HeadingChanges", headingChanges, other.headingChanges)
        compare("Fixes", fixes, other.fixes)
        compare("FirstTime", firstTime, other.firstTime)
        compare("LastTime", lastTime, other.lastTime)
        compare("MinLatitude", minLatitude, other.minLatitude)
        compare("MaxLatitude", maxLatitude, other.maxLatitude)
        compare("MinLongitude", minLongitude, other.minLongitude)
        compare("MaxLongitude", maxLongitude, other.maxLongitude)
        compare("MaxSpeed", maxSpeed, other.maxSpeed)
        compare("LengthNanometres", lengthNanometres, other.lengthNanometres)
        compare("LastKey, LastLatitude, LastLongitude", last, other.last)
        return names
    }
}
