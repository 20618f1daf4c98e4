// SPDX-License-Identifier: MIT

/// The speed of each track point: the receiver's when it gave one, else derived from the distance to the point
/// before and the time between them. The one place the view's charts and `gpslog plot` get a speed from, so
/// that both show the same numbers. Fed the points in time order; no speed is derived across a segment start or a
/// time gap longer than `maxGap` (a speed over hours of nothing is not a speed), nor from a point at the same time.
public struct SpeedDeriver: Sendable {
    /// Five minutes, as `TrackSegmenter`'s gap: the longest pause between fixes that is still one stretch of moving.
    public static let defaultMaxGapMilliseconds: Int64 = 5 * 60 * 1000

    /// The longest time between two points a speed is derived over, in milliseconds.
    public let maxGap: Int64
    private var last: (time: Timestamp, latitude: Double, longitude: Double)?

    /// A deriver that has seen no point yet.
    public init(maxGapMilliseconds: Int64 = SpeedDeriver.defaultMaxGapMilliseconds) {
        maxGap = maxGapMilliseconds
    }

    /// The speed of the next track point in metres per second, and whether it was derived (the receiver gave
    /// none); nil when there is neither (the first point, or after a gap).
    public mutating func speed(of e: Entry) -> (metresPerSecond: Double, derived: Bool)? {
        defer { last = (e.time, e.latitude, e.longitude) }
        if let v = e.speed, v.isFinite { return (v, false) }
        guard let p = last, !e.startsSegment else { return nil }
        let milliseconds = e.time.milliseconds - p.time.milliseconds
        guard milliseconds > 0, milliseconds <= maxGap else { return nil }
        let metres = Geo.distance(lat1: p.latitude, lon1: p.longitude, lat2: e.latitude, lon2: e.longitude)
        return (metres / (Double(milliseconds) / 1000), true)
    }
}
