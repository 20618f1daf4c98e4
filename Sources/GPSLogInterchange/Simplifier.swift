// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogGEOS
import GPSLogModel

/// Track simplification with GEOS's topology-preserving simplifier (Douglas-Peucker that never makes the line cross
/// itself), run on a local metric projection so the tolerance is in metres.
public enum Simplifier {
    public struct Point: Sendable {
        public var key: Int64
        public var latitude: Double
        public var longitude: Double
        public init(key: Int64, latitude: Double, longitude: Double) {
            self.key = key
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// The keys of a session's track points (within the time range) to keep at `tolerance` metres. Both ends of
    /// every segment (`TrackSegmenter`) are kept, so the simplified track breaks where the original does.
    public static func keptKeys(
        of sessionID: String, in source: any SessionSource, from: Timestamp?, to: Timestamp?, tolerance: Double
    ) throws -> Set<Int64> {
        var points: [Point] = []
        var ends = Set<Int64>()
        var segmenter = TrackSegmenter()
        try source.forEachEntry(of: sessionID, from: from, to: to, fields: .track) { e in
            if !e.marked && !e.isHeadingChanged {
                if segmenter.startsSegment(e), let previous = points.last {
                    ends.insert(previous.key)
                    ends.insert(e.key ?? 0)
                }
                points.append(.init(key: e.key ?? 0, latitude: e.latitude, longitude: e.longitude))
            }
        }
        return try keptKeys(points, tolerance: tolerance).union(ends)
    }

    /// The keys of the points to keep at `tolerance` metres. The first and the last point are always kept (GEOS
    /// keeps a line's end points); marks are not track points and are always exported.
    public static func keptKeys(_ points: [Point], tolerance: Double) throws -> Set<Int64> {
        guard points.count > 2 else { return Set(points.map(\.key)) }
        // Equirectangular projection about the track's mean latitude: metres, accurate to well under 1 % over the
        // tens of kilometres a track spans, which is all a simplification tolerance needs.
        let lat0 = points.map(\.latitude).reduce(0, +) / Double(points.count) * .pi / 180
        let kx = Geo.earthRadius * .pi / 180 * cos(lat0)
        let ky = Geo.earthRadius * .pi / 180
        let projected = points.map { (x: $0.longitude * kx, y: $0.latitude * ky) }
        let context = try GEOSContext()
        let line = try Geometry.lineString(projected, context: context)
        let simplified = try line.topologyPreservingSimplify(tolerance: tolerance).coordinates()
        // The simplified line is a subsequence of the original vertices, coordinates copied exactly.
        var kept = Set<Int64>()
        var j = 0
        for (i, p) in projected.enumerated() where j < simplified.count {
            if p.x == simplified[j].x && p.y == simplified[j].y {
                kept.insert(points[i].key)
                j += 1
            }
        }
        kept.insert(points[0].key)
        kept.insert(points[points.count - 1].key)
        return kept
    }
}
