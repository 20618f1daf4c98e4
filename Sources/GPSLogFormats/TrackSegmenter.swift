// SPDX-License-Identifier: MIT
import GPSLogModel

/// Splits a track into segments where the time between two points exceeds the gap (a receiver switched off, a
/// tunnel, a paused recording): GPX writes a new trkseg, GeoJSON a MultiLineString.
public struct TrackSegmenter {
    /// Five minutes: longer than any pause a 1 s-to-1 min sampler leaves while moving, shorter than a stop that
    /// should not be drawn as a straight line.
    public static let defaultGapMilliseconds: Int64 = 5 * 60 * 1000

    public let gap: Int64
    private var last: Timestamp?

    public init(gapMilliseconds: Int64 = TrackSegmenter.defaultGapMilliseconds) { gap = gapMilliseconds }

    /// True when `time` starts a new segment (never for the first point).
    public mutating func startsSegment(_ time: Timestamp) -> Bool {
        defer { last = time }
        guard let last else { return false }
        return time.milliseconds - last.milliseconds > gap
    }
}
