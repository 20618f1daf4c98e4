// SPDX-License-Identifier: MIT

/// Overland's battery states.
public enum BatteryState: String, Sendable, Codable, CaseIterable {
    case unknown, charging, full, unplugged
}

/// One row of the Entries table: a sampled location, a mark, or a heading change (after GPS Log).
public struct Entry: Sendable, Equatable {
    /// Row key (`Entries.Key`); nil before the row is stored.
    public var key: Int64?
    /// Unique id of the entry (`Entries.EntryID`), a UUID string.
    public var id: String
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double
    /// Metres above mean sea level; nil when the fix had none.
    public var altitude: Double?
    /// Estimated horizontal error in metres; nil when the receiver did not say.
    public var horizontalAccuracy: Double?
    /// Estimated vertical error in metres; nil when the receiver did not say.
    public var verticalAccuracy: Double?
    /// When the entry was recorded (UTC).
    public var time: Timestamp
    /// Metres per second.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var course: Double?
    /// Reverse-geocoded address, filled in later by the geocoder.
    public var address: String?
    /// True when the user marked this point.
    public var marked: Bool
    /// The mark's label.
    public var label: String?
    /// How many accepted fixes fell at this same place in a row (1 for a fresh row).
    public var instanceCount: Int
    /// For heading-change rows: the new heading in degrees true.
    public var heading: Double?
    /// True when the row records a heading change rather than a new position.
    public var isHeadingChanged: Bool
    /// When the heading was read (heading-change rows).
    public var headingTime: Timestamp?
    // Fix quality.
    /// Satellites used in the solution.
    public var satellites: Int?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Vertical dilution of precision.
    public var vdop: Double?
    /// Position (3D) dilution of precision.
    public var pdop: Double?
    /// 2D or 3D; nil when the receiver did not say.
    public var fixMode: FixMode?
    // Overland properties, so an Overland payload round-trips.
    /// Overland `speed_accuracy`, metres per second.
    public var speedAccuracy: Double?
    /// Overland `course_accuracy`, degrees.
    public var courseAccuracy: Double?
    /// Overland `motion`, e.g. `["driving","stationary"]`.
    public var motion: [String]?
    /// Overland `battery_state`.
    public var batteryState: BatteryState?
    /// 0...1.
    public var batteryLevel: Double?
    /// Overland `device_id`: the phone that sent the location.
    public var deviceID: String?
    /// Overland `wifi`: the name of the Wi-Fi network the phone was on.
    public var wifi: String?
    /// True when a new track segment starts at this location row although little time passed since the last one:
    /// the receiver was lost and came back, or the imported track started a new segment here (`StartsSegment`).
    public var startsSegment: Bool
    /// OwnTracks' monitoring mode the entry was recorded in; nil for GPS Log's interval sampling (`Monitoring`).
    public var monitoring: MonitoringMode?
    /// What made the entry (OwnTracks' `t`); nil for an automatic one (`ReportTrigger`).
    public var trigger: ReportTrigger?
    /// The regions the entry lies in, by name (OwnTracks' `inregions`); nil: none (`InRegions`).
    public var inRegions: [String]?
    /// OwnTracks' tag, set while recording (`record --tag`, `gpslog tag`) and kept with every entry after (`Tag`).
    public var tag: String?
    /// True for a mark whose label names a point of interest (OwnTracks' `poi`; `IsPOI`).
    public var isPOI: Bool
    /// The keys an app sent that gpslog has no field for, as text (Traccar's position attributes: the osmand
    /// protocol's other keys, Traccar Client's JSON `extras`); nil: none (`Extras`' `a`).
    public var attributes: [String: String]? = nil

    /// Creates an entry from its parts; what is not given is nil, false, or 1 for `instanceCount`.
    public init(
        key: Int64? = nil, id: String, latitude: Double, longitude: Double, altitude: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, time: Timestamp,
        speed: Double? = nil, course: Double? = nil, address: String? = nil, marked: Bool = false,
        label: String? = nil, instanceCount: Int = 1, heading: Double? = nil, isHeadingChanged: Bool = false,
        headingTime: Timestamp? = nil, satellites: Int? = nil, hdop: Double? = nil, vdop: Double? = nil,
        pdop: Double? = nil, fixMode: FixMode? = nil, speedAccuracy: Double? = nil, courseAccuracy: Double? = nil,
        motion: [String]? = nil, batteryState: BatteryState? = nil, batteryLevel: Double? = nil,
        deviceID: String? = nil, wifi: String? = nil, startsSegment: Bool = false, monitoring: MonitoringMode? = nil,
        trigger: ReportTrigger? = nil, inRegions: [String]? = nil, tag: String? = nil, isPOI: Bool = false
    ) {
        self.key = key
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.time = time
        self.speed = speed
        self.course = course
        self.address = address
        self.marked = marked
        self.label = label
        self.instanceCount = instanceCount
        self.heading = heading
        self.isHeadingChanged = isHeadingChanged
        self.headingTime = headingTime
        self.satellites = satellites
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.fixMode = fixMode
        self.speedAccuracy = speedAccuracy
        self.courseAccuracy = courseAccuracy
        self.motion = motion
        self.batteryState = batteryState
        self.batteryLevel = batteryLevel
        self.deviceID = deviceID
        self.wifi = wifi
        self.startsSegment = startsSegment
        self.monitoring = monitoring
        self.trigger = trigger
        self.inRegions = inRegions
        self.tag = tag
        self.isPOI = isPOI
    }

    /// A location entry from a fix.
    public init(id: String, fix: Fix, marked: Bool = false, label: String? = nil) {
        self.init(
            id: id, latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude,
            horizontalAccuracy: fix.horizontalAccuracy, verticalAccuracy: fix.verticalAccuracy, time: fix.time,
            speed: fix.speed, course: fix.course, marked: marked, label: label, satellites: fix.satellites,
            hdop: fix.hdop, vdop: fix.vdop, pdop: fix.pdop, fixMode: fix.fixMode)
    }
}
