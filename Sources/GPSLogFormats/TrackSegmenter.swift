// SPDX-License-Identifier: MIT
import GPSLogModel

/// Splits a track into segments where the time between two points exceeds the gap (a receiver switched off, a
/// tunnel, a paused recording), and at every point stored as a segment start (`Entry.startsSegment`: a receiver
/// lost for a moment, an imported trkseg): GPX writes a new trkseg, GeoJSON a MultiLineString, KML a
/// MultiGeometry.
public struct TrackSegmenter {
    /// Five minutes: longer than any pause a 1 s-to-1 min sampler leaves while moving, shorter than a stop that
    /// should not be drawn as a straight line.
    public static let defaultGapMilliseconds: Int64 = 5 * 60 * 1000

    /// The time gap that starts a segment, in milliseconds.
    public let gap: Int64
    private var last: Timestamp?

    /// A segmenter with a gap of `gapMilliseconds` (five minutes by default) that has seen no point yet.
    public init(gapMilliseconds: Int64 = TrackSegmenter.defaultGapMilliseconds) { gap = gapMilliseconds }

    /// True when the track point `e` starts a new segment (never the first point).
    public mutating func startsSegment(_ e: Entry) -> Bool { startsSegment(at: e.time, flagged: e.startsSegment) }

    /// True when a track point at `time` starts a new segment, `flagged` when the recording started one there.
    public mutating func startsSegment(at time: Timestamp, flagged: Bool) -> Bool {
        defer { last = time }
        guard let last else { return false }
        return flagged || time.milliseconds - last.milliseconds > gap
    }
}
