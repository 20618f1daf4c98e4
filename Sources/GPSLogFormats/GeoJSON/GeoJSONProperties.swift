// SPDX-License-Identifier: MIT
import GPSLogModel

/// A position: longitude, latitude and the altitude when given (RFC 7946's order).
public struct GeoJSONPosition: Sendable, Equatable {
    /// Degrees east, WGS 84.
    public var longitude: Double
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Metres, the position's third value; nil when there is none.
    public var altitude: Double?

    /// Creates a position from its parts.
    public init(longitude: Double, latitude: Double, altitude: Double? = nil) {
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude
    }
}

/// The properties of a feature that mean what one of gpslog's columns means, under the names the trackers and tools
/// people export from give them: gpslog's own (`kind`, `session`, `label`, `address`), Overland's (`timestamp`,
/// `horizontal_accuracy`, `battery_level`, ...), GPSLogger's (`time`, `accuracy`, `bearing`, `battery` in %),
/// OwnTracks' and ocat's (`tst`, `isotst`, `vel` in km/h, `cog`, `acc`, `batt`, `addr`), Dawarich's (`timestamp` in
/// Unix seconds, `battery_status`), GDAL's GPX layers (`ele`, `time`, `track_fid`, `track_seg_id`, `sat`, `hdop`),
/// togeojson's and GPSBabel's (`name`, `desc`). CoreLocation's -1 means unknown, as in Overland's payloads. Anything
/// else is not kept. Dawarich's `velocity` is not read: it holds km/h or m/s depending on the app that sent it.
public struct GeoJSONProperties: Sendable {
    /// The point's time: the first of `timestamp`, `time`, `isotst`, `tst`, `time_long`, `timestamp_ms`, a
    /// `coordTimes` string (a Point from togeojson); ISO 8601 text or Unix seconds (milliseconds from 1e11 on, or
    /// for `time_long` and `timestamp_ms`). Else `otherTime`, once the properties are read.
    public var time: Timestamp?
    /// The first of `datetime`, `date_time`, `recorded_at`, `when`, `date` that is a time (other writers' names for
    /// a point's time; a value that is not one is not read).
    public var otherTime: Timestamp?
    /// gpslog's `kind`: `track`, `mark`, `visit`, `transition`.
    public var kind: String?
    /// `name` (a track's, a waypoint's or a visit's place's name), `session_name`.
    public var name: String?
    /// A mark's `label`.
    public var label: String?
    /// `address`, `addr`, `desc`, `description` (as GPX's `desc`).
    public var address: String?
    /// gpslog's `session` id.
    public var session: String?
    /// GDAL's `track_fid` and `track_seg_id` (the GPX track and segment a point came from).
    public var track: String?
    /// GDAL's `track_seg_id`.
    public var segment: String?
    /// gpslog's session `start`, `end` and `mode`.
    public var start: Timestamp?
    /// gpslog's session `end`.
    public var end: Timestamp?
    /// gpslog's session `mode`, when it names a trip mode.
    public var mode: TripMode?
    /// Metres (`altitude`, `ele`, `elevation`, `alt`); a position's own third value comes first.
    public var altitude: Double?
    /// Metres per second (`speed`; `vel` is km/h).
    public var speed: Double?
    /// Degrees true (`course`, `bearing`, `cog`).
    public var course: Double?
    /// Metres (`horizontal_accuracy`, `accuracy`, `acc`).
    public var horizontalAccuracy: Double?
    /// Metres (`vertical_accuracy`, `vac`).
    public var verticalAccuracy: Double?
    /// Metres per second (`speed_accuracy`).
    public var speedAccuracy: Double?
    /// Degrees (`course_accuracy`).
    public var courseAccuracy: Double?
    /// Satellites used (`sat`, `satellites`, `sats`).
    public var satellites: Int?
    /// `hdop`.
    public var hdop: Double?
    /// `vdop`.
    public var vdop: Double?
    /// `pdop`.
    public var pdop: Double?
    /// `fix`: `2d` or `3d` (or 2, 3).
    public var fixMode: FixMode?
    /// 0 ... 1 (`battery_level`; `batt` and `battery` are percentages).
    public var batteryLevel: Double?
    /// `battery_state`, `battery_status`.
    public var batteryState: BatteryState?
    /// Overland's `device_id`.
    public var deviceID: String?
    /// `wifi`, `ssid`: the Wi-Fi network's name.
    public var wifi: String?
    /// Overland's `motion`, e.g. `["driving"]`.
    public var motion: [String]?
    /// gpslog's transitions: `event` (enter, leave), `region` (its name) and `rid`.
    public var event: RegionEvent?
    /// The transition's `region` name.
    public var region: String?
    /// The transition's region id (`rid`).
    public var regionID: String?
    /// gpslog's `id` of a mark (kept on import when free).
    public var entryID: String?
    /// gpslog's visits: `arrival` and `departure` (null while still there).
    public var arrival: Timestamp?
    /// The visit's `departure`.
    public var departure: Timestamp?

    /// Properties that say nothing yet.
    public init() {}

    /// What the properties say of a point at `position`: an entry with the `id` given, else an empty one (its time
    /// is 0 when the properties have none; `time` says whether they do).
    public func entry(at position: GeoJSONPosition) -> Entry {
        var e = Entry(
            id: entryID ?? "", latitude: position.latitude, longitude: position.longitude,
            time: time ?? Timestamp(milliseconds: 0)
        )
        e.altitude = position.altitude ?? altitude
        e.speed = speed
        e.course = course
        e.horizontalAccuracy = horizontalAccuracy
        e.verticalAccuracy = verticalAccuracy
        e.speedAccuracy = speedAccuracy
        e.courseAccuracy = courseAccuracy
        e.satellites = satellites
        e.hdop = hdop
        e.vdop = vdop
        e.pdop = pdop
        e.fixMode = fixMode
        e.batteryLevel = batteryLevel
        e.batteryState = batteryState
        e.deviceID = deviceID
        e.wifi = wifi
        e.motion = motion
        e.address = address
        return e
    }
}
