// SPDX-License-Identifier: MIT

/// A place the receiver stayed at: where (the mean of the stay's fixes), how precisely, and when.
public struct Visit: Sendable, Equatable {
    /// Row key (`Visits.Key`); nil before the row is stored.
    public var key: Int64?
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double
    /// The larger of the farthest fix from the mean and the worst accuracy the receiver gave, in metres.
    public var horizontalAccuracy: Double
    /// The stay's first fix.
    public var arrival: Timestamp
    /// The first fix outside the stay; nil while still there.
    public var departure: Timestamp?
    /// Reverse-geocoded address of the place.
    public var address: String?
    /// The name the user gave the place (`gpslog visit rename`); shown before the address.
    public var name: String?

    /// Creates a visit from its parts.
    public init(
        key: Int64? = nil, latitude: Double, longitude: Double, horizontalAccuracy: Double, arrival: Timestamp,
        departure: Timestamp?, address: String? = nil, name: String? = nil
    ) {
        self.key = key
        self.address = address
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.arrival = arrival
        self.departure = departure
    }
}

/// A change in what a recording does, kept and sent as Overland's records (`TrackingEvents`).
public enum TrackingAction: String, Sendable, Codable, CaseIterable {
    /// Overland's `paused_location_updates`: the automatic pause began; no entries until the resume.
    case paused = "paused_location_updates"
    /// Overland's `resumed_location_updates` (after `exited_pause_region`): the receiver left the pause's geofence.
    case resumed = "resumed_location_updates"
}

/// One row of `TrackingEvents`: what happened, when and where.
public struct TrackingEvent: Sendable, Equatable {
    /// Row key; nil before the row is stored.
    public var key: Int64?
    /// Paused or resumed.
    public var action: TrackingAction
    /// When it happened.
    public var time: Timestamp
    /// Degrees north, WGS 84: where it happened.
    public var latitude: Double
    /// Degrees east, WGS 84: where it happened.
    public var longitude: Double

    /// Creates an event from its parts.
    public init(key: Int64? = nil, action: TrackingAction, time: Timestamp, latitude: Double, longitude: Double) {
        self.key = key
        self.action = action
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
    }
}
