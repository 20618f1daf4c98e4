// SPDX-License-Identifier: MIT
import GPSLogModel

/// Watches, fix by fix, which circular regions the receiver is in, and says when it enters or leaves one.
///
/// A fix counts by its position and its accuracy, with hysteresis so that jitter at the edge does not flap: the
/// receiver enters once it is inside the radius by a margin, and leaves once it is outside by that margin. The margin
/// is the fix's horizontal accuracy (at least 5 m, at most half the radius). A fix whose accuracy is worse than the
/// region's radius cannot tell inside from outside and changes nothing for that region (OwnTracks' apps likewise
/// ignore inaccurate locations for regions). The first fix only sets where the receiver is, without a transition.
public struct RegionWatcher: Sendable {
    public let regions: [Region]
    /// Inside or not, by region id; nil until a fix has told.
    private var inside: [String: Bool] = [:]
    /// The smallest margin, in metres: below the jitter of a receiver at rest.
    public static let minimumMargin = 5.0

    public init(regions: [Region]) { self.regions = regions }

    /// The regions the receiver is in, by name (OwnTracks' `inregions`).
    public var insideNames: [String] { regions.filter { inside[$0.regionID] == true }.map(\.name) }

    /// Takes the next fix; returns the regions entered and left at it.
    public mutating func add(_ fix: Fix) -> [(region: Region, event: RegionEvent)] {
        var events: [(Region, RegionEvent)] = []
        for region in regions {
            let accuracy = fix.horizontalAccuracy ?? 0
            guard accuracy <= region.radius else { continue }
            let margin = min(max(Self.minimumMargin, accuracy), region.radius / 2)
            let d = Geo.distance(
                lat1: region.latitude, lon1: region.longitude, lat2: fix.latitude, lon2: fix.longitude)
            switch inside[region.regionID] {
            case nil: inside[region.regionID] = d <= region.radius
            case true? where d > region.radius + margin:
                inside[region.regionID] = false
                events.append((region, .leave))
            case false? where d <= region.radius - margin:
                inside[region.regionID] = true
                events.append((region, .enter))
            default: break
            }
        }
        return events
    }
}
