// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline
import GPSLogStore
import GPSLogTestSupport
import Testing

/// The streamed simplification (a segment at a time, long ones in chunks sharing their boundary point) against the
/// whole track simplified in one piece, on a real 7,080-point Garmin track.
@Suite(.ownThreads)
struct StreamingSimplifierTests {
    static let garmin = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    /// The track points in order, as the simplifier reads them, and the indexes where segments start.
    static func track(_ store: Store, _ session: Session) throws -> ([Simplifier.Point], [Int]) {
        var points: [Simplifier.Point] = []
        var starts: [Int] = []
        var segmenter = TrackSegmenter()
        try store.forEachEntry(of: session.id, from: nil, to: nil, fields: .track) { e in
            guard !e.marked && !e.isHeadingChanged else { return }
            if segmenter.startsSegment(e) { starts.append(points.count) }
            points.append(.init(key: e.key ?? 0, latitude: e.latitude, longitude: e.longitude))
        }
        return (points, starts)
    }

    /// How far the farthest dropped point lies from the line between the kept points around it, within segments.
    static func worstDrop(_ points: [Simplifier.Point], starts: [Int], kept: Set<Int64>) -> Double {
        var worst = 0.0
        for (n, first) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1] : points.count
            var previous = first
            for i in (first + 1)..<end where kept.contains(points[i].key) {
                for j in (previous + 1)..<i {
                    worst = max(worst, distance(points[j], points[previous], points[i]))
                }
                previous = i
            }
        }
        return worst
    }

    /// The distance in metres from `p` to the line from `a` to `b`, in a local projection about `p`.
    static func distance(_ p: Simplifier.Point, _ a: Simplifier.Point, _ b: Simplifier.Point) -> Double {
        let kx = Geo.earthRadius * .pi / 180 * cos(p.latitude * .pi / 180)
        let ky = Geo.earthRadius * .pi / 180
        let (ax, ay) = ((a.longitude - p.longitude) * kx, (a.latitude - p.latitude) * ky)
        let (bx, by) = ((b.longitude - p.longitude) * kx, (b.latitude - p.latitude) * ky)
        let (dx, dy) = (bx - ax, by - ay)
        let length2 = dx * dx + dy * dy
        let t = length2 == 0 ? 0 : min(1, max(0, -(ax * dx + ay * dy) / length2))
        return hypot(ax + t * dx, ay + t * dy)
    }

    @Test(arguments: [2.0, 10.0, 50.0])
    func chunksKeepEveryPointWithinTheToleranceAndCloseToTheWholeResult(tolerance: Double) throws {
        try withTemporaryStore { store, _ in
            let session = try #require(try FileImporter().importFile(Self.garmin, into: store).first).session
            let (points, starts) = try Self.track(store, session)
            let gpx = try String(contentsOfFile: Self.garmin, encoding: .utf8)
            #expect(points.count == gpx.components(separatedBy: "<trkpt ").count - 1)
            let whole = try Simplifier.keptKeys(points, tolerance: tolerance)
            let chunkSize = 500
            let chunked = try Simplifier.keptKeys(
                of: session.id, in: store, from: nil, to: nil, tolerance: tolerance, chunkSize: chunkSize)

            // Both ends of every segment are kept.
            let ends = starts.flatMap { [points[$0].key, points[max(0, $0 - 1)].key] } + [points.last!.key]
            #expect(chunked.isSuperset(of: ends))
            // Every point dropped lies within the tolerance of the line between the kept points around it, as in
            // the whole track simplified in one piece.
            #expect(Self.worstDrop(points, starts: starts, kept: whole) <= tolerance * 1.01)
            let worst = Self.worstDrop(points, starts: starts, kept: chunked)
            #expect(worst <= tolerance * 1.01, "a dropped point \(worst) m from the simplified line")
            // At most a few more points than in one piece: chunk boundaries add some.
            #expect(whole.count < points.count, "the tolerance drops points, so the comparison means something")
            let chunks = points.count / (chunkSize - 1) + starts.count
            #expect(chunked.count <= whole.count + 2 * chunks, "\(chunked.count) kept against \(whole.count)")
        }
    }
}
