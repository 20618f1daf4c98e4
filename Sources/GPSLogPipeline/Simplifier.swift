// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogGEOS
import GPSLogModel

/// Track simplification with GEOS's Douglas-Peucker simplifier, run on a local metric projection so the tolerance is
/// in metres. Not GEOS's topology-preserving variant: a track crosses itself anyway (out and back, laps), so keeping
/// its simplified line from crossing itself buys nothing, and the variant's index of segments took a fifth of the
/// CPU of a session page's first opening.
///
/// Streamed: a session's track is read once and simplified a segment at a time, a long segment in chunks of
/// `chunkSize` points that share their boundary point, so memory stays flat however long the session is (GEOS
/// needs about 400 bytes a vertex while it simplifies a line: 400 MB for a 1M-point track in one piece). Every
/// point of a chunk is within the tolerance of the chunk's simplified line, as in one piece, so the whole result
/// is within the tolerance of the track; it keeps one more point per chunk than a whole-track run would (the
/// shared boundary), and topology is preserved within a chunk, not across chunks.
public enum Simplifier {
    /// A track point as the simplifier needs it: its row key and position.
    public struct Point: Sendable {
        /// The entry's row key, what `keptKeys` hands back.
        public var key: Int64
        /// Degrees north, WGS 84.
        public var latitude: Double
        /// Degrees east, WGS 84.
        public var longitude: Double
        /// Creates a point from its parts.
        public init(key: Int64, latitude: Double, longitude: Double) {
            self.key = key
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Points simplified at once: GEOS's work per chunk stays in the CPU caches, and its memory stays a few MB.
    public static let chunkSize = 16_384

    /// The keys of a session's track points (within the time range) to keep at `tolerance` metres. Both ends of
    /// every segment (`TrackSegmenter`) and of every chunk are kept, so the simplified track breaks where the
    /// original does.
    public static func keptKeys(
        of sessionID: String, in source: any SessionSource, from: Timestamp?, to: Timestamp?, tolerance: Double,
        chunkSize: Int = Simplifier.chunkSize
    ) throws -> Set<Int64> {
        let context = try GEOSContext()
        var kept = Set<Int64>()
        var chunk: [Point] = []
        chunk.reserveCapacity(chunkSize)
        var segmenter = TrackSegmenter()
        func flush() throws {
            kept.formUnion(try keptKeys(chunk, tolerance: tolerance, context: context))
            chunk.removeAll(keepingCapacity: true)
        }
        try source.forEachTrackPosition(of: sessionID, from: from, to: to) { e in
            if segmenter.startsSegment(at: e.time, flagged: e.startsSegment), !chunk.isEmpty {
                try flush()
            } else if chunk.count >= max(2, chunkSize) {
                let boundary = chunk[chunk.count - 1]
                try flush()
                chunk.append(boundary)
            }
            chunk.append(.init(key: e.key, latitude: e.latitude, longitude: e.longitude))
        }
        if !chunk.isEmpty { try flush() }
        return kept
    }

    /// The keys of the points to keep at `tolerance` metres, the line simplified in one piece. The first and the
    /// last point are always kept (GEOS keeps a line's end points); marks are not track points and are always
    /// exported.
    public static func keptKeys(_ points: [Point], tolerance: Double, context: GEOSContext? = nil) throws -> Set<Int64>
    {
        guard points.count > 2 else { return Set(points.map(\.key)) }
        // Equirectangular projection about the line's mean latitude: metres, accurate to well under 1 % over the
        // tens of kilometres a chunk spans, which is all a simplification tolerance needs.
        let lat0 = points.map(\.latitude).reduce(0, +) / Double(points.count) * .pi / 180
        let kx = Geo.earthRadius * .pi / 180 * cos(lat0)
        let ky = Geo.earthRadius * .pi / 180
        let projected = points.map { (x: $0.longitude * kx, y: $0.latitude * ky) }
        let context = try context ?? GEOSContext()
        let line = try Geometry.lineString(projected, context: context)
        let simplified = try line.simplify(tolerance: tolerance).coordinates()
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
