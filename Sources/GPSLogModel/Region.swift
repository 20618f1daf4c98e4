// SPDX-License-Identifier: MIT

/// A region monitored while recording: entering or leaving it writes a transition. A circle (OwnTracks' waypoint
/// with a radius, `gpslog region add`) or a polygon (`gpslog region import` of GeoJSON, `outline`).
public struct Region: Sendable, Equatable {
    /// Row key; nil before the row is stored.
    public var key: Int64?
    /// The region's description (OwnTracks' `desc`), unique.
    public var name: String
    /// The centre of a circle; a point inside a polygon.
    public var latitude: Double
    /// Degrees east, WGS 84, of the same point.
    public var longitude: Double
    /// Metres: a circle's radius; for a polygon, the distance from `latitude`, `longitude` to its farthest vertex,
    /// so that the circle holds the polygon (what reads only the circle, such as OwnTracks, still holds the region).
    public var radius: Double
    /// OwnTracks' region id (`rid`): stable across renames.
    public var regionID: String
    /// When the region was made (OwnTracks' `tst` of a waypoint, a transition's `wtst`).
    public var created: Timestamp
    /// A polygon region's outline: a GeoJSON (RFC 7946) Polygon or MultiPolygon geometry, WGS 84 longitude and
    /// latitude; nil for a circle.
    public var outline: String?

    /// Creates a region from its parts; `outline` nil makes a circle.
    public init(
        key: Int64? = nil, name: String, latitude: Double, longitude: Double, radius: Double, regionID: String,
        created: Timestamp, outline: String? = nil
    ) {
        self.key = key
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.regionID = regionID
        self.created = created
        self.outline = outline
    }

    /// True for a polygon region (`outline`), false for a circle.
    public var isPolygon: Bool { outline != nil }
}

/// Entering or leaving a region (OwnTracks' `event`).
public enum RegionEvent: String, Sendable, Codable, CaseIterable {
    case enter, leave
}

/// What kind of region a transition went through (OwnTracks' `t` of a transition).
public enum TransitionTrigger: String, Sendable, Codable, CaseIterable {
    /// A circular region (gpslog's own regions are all circular).
    case circular = "c"
    /// An iBeacon region.
    case beacon = "b"
    /// A location-based one (OwnTracks iOS' `l`).
    case location = "l"
}

/// One row of `Transitions`: a region entered or left, at a fix.
public struct Transition: Sendable, Equatable {
    /// Row key; nil before the row is stored.
    public var key: Int64?
    /// The region entered or left.
    public var region: Region
    /// Entering or leaving.
    public var event: RegionEvent
    /// The time of the fix at which it happened.
    public var time: Timestamp
    /// Degrees north, WGS 84, of that fix.
    public var latitude: Double
    /// Degrees east, WGS 84, of that fix.
    public var longitude: Double
    /// That fix's horizontal accuracy in metres; nil when it had none.
    public var horizontalAccuracy: Double?
    /// OwnTracks' `t`; nil when a received transition did not say.
    public var trigger: TransitionTrigger?
    /// False for a received transition whose device never sent the region (its waypoint): `region` then carries the
    /// name, id and creation time only, standing at the transition's place with no radius.
    public var regionIsKnown = true

    /// Creates a transition from its parts; `trigger` is circular unless given.
    public init(
        key: Int64? = nil, region: Region, event: RegionEvent, time: Timestamp, latitude: Double, longitude: Double,
        horizontalAccuracy: Double?, trigger: TransitionTrigger? = .circular
    ) {
        self.key = key
        self.region = region
        self.event = event
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.trigger = trigger
    }
}
