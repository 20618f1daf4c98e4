// SPDX-License-Identifier: MIT

/// A waypoint a device published (OwnTracks' `_type: waypoint`, or one of a `waypoints` list): one of the phone's
/// own regions, kept per device, apart from the regions gpslog monitors (`Region`).
public struct ReceivedWaypoint: Sendable, Equatable {
    /// OwnTracks' `rid`; nil when the app sent none (the waypoint is then known by `created`).
    public var regionID: String?
    /// OwnTracks' `desc`.
    public var description: String
    /// Nil for a beacon region, which has no centre.
    public var latitude: Double?
    /// Degrees east, WGS 84; nil for a beacon region.
    public var longitude: Double?
    /// Metres; nil or 0 for a place that is not a region.
    public var radius: Double?
    /// OwnTracks' `tst`: when the waypoint was made (its transitions carry it as `wtst`).
    public var created: Timestamp

    /// Creates a waypoint from its parts.
    public init(
        regionID: String?, description: String, latitude: Double?, longitude: Double?, radius: Double?,
        created: Timestamp
    ) {
        self.regionID = regionID
        self.description = description
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.created = created
    }

    /// The region's centre and radius when the waypoint gives all three (a beacon has no centre; a radius of 0 is a
    /// place, not a region); a transition through it takes them.
    public var area: (latitude: Double, longitude: Double, radius: Double)? {
        guard let latitude, let longitude, let radius, radius > 0 else { return nil }
        return (latitude, longitude, radius)
    }
}

/// A transition a phone reported (OwnTracks' `_type: transition`), made by one of its own regions: the region is
/// named by `desc` and `rid`, its centre and radius come only with its waypoint.
public struct ReceivedTransition: Sendable, Equatable {
    /// Whether the device entered or left the region.
    public var event: RegionEvent
    /// OwnTracks' `tst`.
    public var time: Timestamp
    /// Degrees north, WGS 84: where the device was.
    public var latitude: Double
    /// Degrees east, WGS 84: where the device was.
    public var longitude: Double
    /// OwnTracks' `acc`, metres; nil when the phone did not say.
    public var horizontalAccuracy: Double?
    /// OwnTracks' `desc`.
    public var regionName: String?
    /// OwnTracks' `rid`.
    public var regionID: String?
    /// OwnTracks' `wtst`: when the region was made (its waypoint's `tst`).
    public var regionCreated: Timestamp
    /// OwnTracks' `t`.
    public var trigger: TransitionTrigger?

    /// Creates a transition from its parts.
    public init(
        event: RegionEvent, time: Timestamp, latitude: Double, longitude: Double, horizontalAccuracy: Double?,
        regionName: String?, regionID: String?, regionCreated: Timestamp, trigger: TransitionTrigger?
    ) {
        self.event = event
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.regionName = regionName
        self.regionID = regionID
        self.regionCreated = regionCreated
        self.trigger = trigger
    }
}

/// A device's card (OwnTracks' `_type: card`): how its friends see it.
public struct DeviceCard: Sendable, Equatable {
    /// OwnTracks' `name`: what the device is called.
    public var name: String?
    /// The decoded image (PNG or JPEG).
    public var face: [UInt8]?
    /// OwnTracks' `tid`.
    public var trackerID: String?

    /// The largest face kept, decoded: 256 KiB (OwnTracks' own tools make 192x192 JPEGs of a few tens of KB).
    public static let maxFaceBytes = 256 << 10
    /// The longest name kept, in characters.
    public static let maxNameLength = 200

    /// Creates a card from its parts.
    public init(name: String?, face: [UInt8]?, trackerID: String?) {
        self.name = name
        self.face = face
        self.trackerID = trackerID
    }
}

/// What `gpslog devices` shows of one OwnTracks device (`USER/DEVICE`) that `serve` heard from.
public struct ReceivedDevice: Sendable, Equatable {
    /// `USER/DEVICE`.
    public var device: String
    /// The device's session, once a location or transition came.
    public var session: Session?
    /// The latest card; nil until one came.
    public var card: DeviceCard?
    /// When the latest card came.
    public var cardReceived: Timestamp?
    /// The time of the device's latest location.
    public var lastLocation: Timestamp?
    /// When the device's latest last will (`lwt`) came, and its `tst`: when the connection it ends was made.
    public var lastWill: Timestamp?
    /// The `tst` of the latest last will.
    public var lastWillConnected: Timestamp?
    /// How many waypoints the device published.
    public var waypoints: Int

    /// A device with no session, card or times yet.
    public init(device: String, waypoints: Int = 0) {
        self.device = device
        self.waypoints = waypoints
    }
}
