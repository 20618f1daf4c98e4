// SPDX-License-Identifier: MIT
import GPSLogModel

/// Where a point lies against a region's edge. The watcher asks only this, so that it needs no geometry library:
/// circles answer it themselves (`CircleBoundary`), polygons through the recording layer's GEOS outlines.
public protocol RegionBoundary: Sendable {
    /// The distance in metres from the point to the region's edge: negative inside, positive outside.
    func signedDistance(latitude: Double, longitude: Double) throws -> Double
    /// The depth in metres of the region's deepest point (a circle's radius; for a polygon, the radius of the
    /// largest circle inside it): a fix less accurate than that cannot tell inside from outside.
    var depth: Double { get }
}

/// A circular region's edge: its radius around its centre.
public struct CircleBoundary: RegionBoundary {
    /// The centre, degrees north, WGS 84.
    public let latitude: Double
    /// The centre, degrees east, WGS 84.
    public let longitude: Double
    /// Metres.
    public let radius: Double

    /// The circle of a region's centre and radius (a polygon region's outline is not read).
    public init(_ region: Region) {
        latitude = region.latitude
        longitude = region.longitude
        radius = region.radius
    }

    /// Great-circle distance from the centre, less the radius: negative inside.
    public func signedDistance(latitude: Double, longitude: Double) -> Double {
        Geo.distance(lat1: self.latitude, lon1: self.longitude, lat2: latitude, lon2: longitude) - radius
    }

    /// The radius.
    public var depth: Double { radius }
}

/// Watches, fix by fix, which regions the receiver is in, and says when it enters or leaves one.
///
/// A fix counts by its position and its accuracy, with hysteresis so that jitter at the edge does not flap: the
/// receiver enters once it is inside the edge by a margin, and leaves once it is outside by that margin. The margin
/// is the fix's horizontal accuracy (at least 5 m, at most half the region's depth: a circle's radius, a polygon's
/// largest inscribed circle's). A fix whose accuracy is worse than the depth cannot tell inside from outside and
/// changes nothing for that region (OwnTracks' apps likewise ignore inaccurate locations for regions). The first fix
/// only sets where the receiver is, without a transition.
public struct RegionWatcher: Sendable {
    /// The regions watched, in the order given.
    public let regions: [Region]
    /// Each region's edge, in the order of `regions`.
    private let boundaries: [any RegionBoundary]
    /// Inside or not, by region id; nil until a fix has told.
    private var inside: [String: Bool] = [:]
    /// The smallest margin, in metres: below the jitter of a receiver at rest.
    public static let minimumMargin = 5.0

    /// Watches `regions`: a circle by its centre and radius, a polygon (`Region.outline`) by the boundary `outline`
    /// makes of it (this module knows no geometry library: the recording layer's comes from GEOS).
    public init(regions: [Region], outline: (Region) throws -> any RegionBoundary) rethrows {
        self.regions = regions
        boundaries = try regions.map { $0.isPolygon ? try outline($0) : CircleBoundary($0) }
    }

    /// Watches circular regions only.
    public init(regions: [Region]) {
        precondition(!regions.contains(where: \.isPolygon), "a polygon region needs its outline")
        self.init(regions: regions) { CircleBoundary($0) }
    }

    /// The regions the receiver is in, by name (OwnTracks' `inregions`).
    public var insideNames: [String] { regions.filter { inside[$0.regionID] == true }.map(\.name) }

    /// Takes the next fix; returns the regions entered and left at it.
    /// - Throws: what a polygon's boundary throws (a GEOS failure).
    public mutating func add(_ fix: Fix) throws -> [(region: Region, event: RegionEvent)] {
        var events: [(Region, RegionEvent)] = []
        for (region, boundary) in zip(regions, boundaries) {
            let accuracy = fix.horizontalAccuracy ?? 0
            guard accuracy <= boundary.depth else { continue }
            let margin = min(max(Self.minimumMargin, accuracy), boundary.depth / 2)
            let d = try boundary.signedDistance(latitude: fix.latitude, longitude: fix.longitude)
            switch inside[region.regionID] {
            case nil: inside[region.regionID] = d <= 0
            case true? where d > margin:
                inside[region.regionID] = false
                events.append((region, .leave))
            case false? where d <= -margin:
                inside[region.regionID] = true
                events.append((region, .enter))
            default: break
            }
        }
        return events
    }
}
