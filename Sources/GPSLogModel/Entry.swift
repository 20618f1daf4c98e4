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
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
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
    public var satellites: Int?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    public var fixMode: FixMode?
    // Overland properties, so an Overland payload round-trips.
    public var speedAccuracy: Double?
    public var courseAccuracy: Double?
    /// Overland `motion`, e.g. `["driving","stationary"]`.
    public var motion: [String]?
    public var batteryState: BatteryState?
    /// 0...1.
    public var batteryLevel: Double?
    public var deviceID: String?
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
