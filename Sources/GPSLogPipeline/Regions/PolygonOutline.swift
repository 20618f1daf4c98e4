// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogGEOS
import GPSLogModel
import GPSLogSampling

/// A polygon region's outline with GEOS, for the region watcher: whether a fix is inside (a prepared polygon's
/// contains) and how far it is from the edge (a prepared boundary's distance), in metres around the region
/// (`LocalProjection`, centred on the region's inner point).
///
/// @unchecked Sendable: the GEOS context and the geometries made with it are only used under `lock` (a GEOS context is
/// not thread-safe), and everything else is immutable.
public final class PolygonOutline: RegionBoundary, @unchecked Sendable {
    private let lock = NSLock()
    private let context: GEOSContext
    private let projection: LocalProjection
    /// The polygon and its boundary (its rings as lines), in metres, prepared: each indexes its edges once, so a
    /// test at a fix does not walk every vertex.
    private let inside: PreparedGeometry
    private let edge: PreparedGeometry
    private let polygons: [GeoJSONPolygons.Polygon]
    /// The radius of the largest circle inside the polygon, metres.
    public let depth: Double
    /// The area, square metres.
    public let area: Double
    /// Corners, each ring's closing position not counted.
    public let vertexCount: Int

    /// Reads `region`'s outline (`Region.outline`).
    /// - Throws: `ImportError` when the stored outline is not a polygon, `GEOSError` when GEOS fails.
    public init(_ region: Region) throws {
        let (polygons, isMulti) = try GeoJSONPolygons.geometry(region.outline ?? "", region: region.name)
        self.polygons = polygons
        context = try GEOSContext()
        projection = LocalProjection(latitude: region.latitude, longitude: region.longitude)
        let metres = try PolygonRegions.geometry(polygons, isMulti: isMulti, context: context)
            .transformed(projection.metres)
        area = try metres.area()
        depth = try Self.depth(of: metres, area: area, polygons, projection)
        inside = try metres.prepared()
        edge = try metres.boundary().prepared()
        vertexCount = GeoJSONPolygons.vertexCount(polygons)
    }

    /// The radius of the largest circle inside `metres`, from GEOS to within a hundred-thousandth of the region's
    /// extent (at least 10 cm: GEOS's radius is a real point's distance to the edge, never more than the true depth).
    /// GEOS 3.11 starts from a grid of squares as wide as the envelope's shorter side, so a sliver 1000 km long and
    /// 10 cm wide lying east-west would make ten million of them and take seconds: past an envelope of 1000 to 1,
    /// the depth is the area over the perimeter instead, which is a thin strip's half-width and half a disc's radius
    /// (never much above the true depth: a coarse depth only makes the margin's cap and the accuracy a fix needs
    /// stricter).
    static func depth(
        of metres: Geometry, area: Double, _ polygons: [GeoJSONPolygons.Polygon], _ projection: LocalProjection
    )
        throws -> Double
    {
        var (minX, minY, maxX, maxY) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        for position in polygons.joined().joined() {
            let (x, y) = projection.metres(position.longitude, position.latitude)
            (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
        }
        let (width, height) = (maxX - minX, maxY - minY)
        guard max(width, height) <= 1000 * min(width, height) else { return area / (try metres.boundary().length()) }
        let extent = (width * width + height * height).squareRoot()
        return try metres.maximumInscribedRadius(tolerance: max(0.1, extent / 100_000))
    }

    /// Metres from the fix to the edge: negative inside (a point in a hole is outside), positive outside.
    public func signedDistance(latitude: Double, longitude: Double) throws -> Double {
        try lock.withLock {
            let (x, y) = projection.metres(longitude, latitude)
            let point = try Geometry.point(x: x, y: y, context: context)
            let distance = try edge.distance(to: point)
            return try inside.contains(point) ? -distance : distance
        }
    }

    /// The smallest circle holding the polygon (GEOS's, in metres around the region), its radius taken again as the
    /// great-circle distance to the farthest vertex so that it holds every vertex: what OwnTracks, which has only
    /// circles, gets for a polygon region.
    public func enclosingCircle() throws -> (latitude: Double, longitude: Double, radius: Double) {
        let circle = try lock.withLock { try inside.base.minimumBoundingCircle() }
        let centre = projection.degrees(circle.x, circle.y)
        let radius = PolygonRegions.farthest(polygons, from: (centre.latitude, centre.longitude))
        return (centre.latitude, centre.longitude, radius)
    }
}

extension RegionWatcher {
    /// A watcher of `regions`, circles by their radius, polygons by their outline with GEOS (`PolygonOutline`); nil
    /// when there are none.
    public static func watching(_ regions: [Region]) throws -> RegionWatcher? {
        regions.isEmpty ? nil : try RegionWatcher(regions: regions) { try PolygonOutline($0) }
    }
}
