// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogGEOS
import GPSLogModel

/// Polygon regions from a GeoJSON file's features, each checked with GEOS before it is taken: a valid (OGC simple
/// features), non-empty polygon with an area, no farther than 1000 km from its inner point (as circles are at most
/// 1000 km in radius). A region is a circle to what reads only the circle: its latitude and longitude are GEOS's
/// point on its surface (inside it, unlike a centroid) and its radius the distance from there to its farthest vertex.
public enum PolygonRegions {
    /// The farthest a polygon's vertex may lie from its inner point, metres: `region add`'s largest radius.
    public static let maxRadius = 1_000_000.0

    /// The regions of `features`, in order; `created` is their creation time (OwnTracks' `tst`).
    /// - Throws: `ImportError.invalidRegion` naming `source`, the feature and GEOS's reason.
    public static func regions(_ features: [GeoJSONPolygons.Feature], source: String, created: Timestamp) throws
        -> [Region]
    {
        let context = try GEOSContext()
        return try features.map { feature in
            let refuse = { (reason: String) in
                ImportError.invalidRegion(file: source, feature: feature.label, reason: reason)
            }
            do {
                return try region(feature, context: context, created: created, refuse: refuse)
            } catch let error as GEOSError {
                throw refuse("not a polygon: \(error.messages.joined(separator: "; ")) (GEOS: \(error.operation))")
            }
        }
    }

    /// One feature's region, or a refusal naming GEOS's reason.
    private static func region(
        _ feature: GeoJSONPolygons.Feature, context: GEOSContext, created: Timestamp,
        refuse: (String) -> ImportError
    ) throws -> Region {
        let geometry = try Self.geometry(feature.polygons, isMulti: feature.isMulti, context: context)
        if try geometry.isEmpty() { throw refuse("an empty polygon") }
        if let reason = try geometry.invalidityReason() { throw refuse("not a valid polygon: \(reason) (GEOS)") }
        guard let inner = try geometry.pointOnSurface().coordinates().first else { throw refuse("no point inside") }
        let (latitude, longitude) = (inner.y, inner.x)
        let projection = LocalProjection(latitude: latitude, longitude: longitude)
        guard try geometry.transformed(projection.metres).area() > 0 else { throw refuse("no area") }
        let radius = farthest(feature.polygons, from: (latitude, longitude))
        guard radius <= maxRadius else {
            throw refuse(
                "a vertex \(Int(radius / 1000)) km from the region's inner point: at most \(Int(maxRadius / 1000)) km")
        }
        let rid =
            feature.rid ?? String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(8))
        return Region(
            name: feature.name, latitude: latitude, longitude: longitude, radius: max(radius, 1), regionID: rid,
            created: created, outline: GeoJSONPolygons.geometryText(feature.polygons, isMulti: feature.isMulti))
    }

    /// The polygons as a GEOS geometry in longitude (x) and latitude (y).
    static func geometry(_ polygons: [GeoJSONPolygons.Polygon], isMulti: Bool, context: GEOSContext) throws
        -> Geometry
    {
        let rings = polygons.map { $0.map { ring in ring.map { (x: $0.longitude, y: $0.latitude) } } }
        return isMulti
            ? try Geometry.multiPolygon(rings, context: context) : try Geometry.polygon(rings[0], context: context)
    }

    /// The great-circle distance in metres from `point` to the farthest vertex.
    static func farthest(_ polygons: [GeoJSONPolygons.Polygon], from point: (latitude: Double, longitude: Double))
        -> Double
    {
        var far = 0.0
        for ring in polygons.joined() {
            for p in ring {
                far = max(
                    far, Geo.distance(lat1: point.latitude, lon1: point.longitude, lat2: p.latitude, lon2: p.longitude))
            }
        }
        return far
    }
}

/// Longitude and latitude to metres east and north of a point (an equirectangular projection centred there): what
/// lets GEOS measure areas and distances in metres around a region. Projected first, rather than measured in degrees
/// and scaled after, because a degree of longitude is shorter than one of latitude away from the equator (by a third
/// at 48°): the edge nearest in degrees is not always the nearest on the ground, and no one scale fits a distance in
/// both directions. The projection is an affine map of longitude and latitude, so straight edges (as GeoJSON draws
/// them) stay straight and what is inside stays inside; distances are true at the centre's latitude and off by the
/// change of its cosine away from it (about 0.1 % 10 km north or south at 50°), well below a fix's accuracy for the
/// regions people watch.
struct LocalProjection {
    let latitude: Double
    let longitude: Double
    /// Metres per degree of latitude, and of longitude at the centre.
    let northScale: Double
    let eastScale: Double

    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
        northScale = Geo.earthRadius * .pi / 180
        // Not quite 0 at a pole, where a degree of longitude has no length.
        eastScale = northScale * max(cos(latitude * .pi / 180), 1e-9)
    }

    /// (x, y) in metres of a longitude (x) and latitude (y); the longitude's difference taken the short way round.
    func metres(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
        var dLon = lon - longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * eastScale, (lat - latitude) * northScale)
    }

    /// Longitude and latitude of (x, y) in metres.
    func degrees(_ x: Double, _ y: Double) -> (longitude: Double, latitude: Double) {
        var lon = longitude + x / eastScale
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lon, latitude + y / northScale)
    }
}
