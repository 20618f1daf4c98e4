// SPDX-License-Identifier: MIT

/// How a receiver solved a position (NMEA GSA mode, gpsd TPV `mode`).
public enum FixMode: Int, Sendable, Codable, CaseIterable {
    /// Latitude and longitude only.
    case twoD = 2
    /// Latitude, longitude and altitude.
    case threeD = 3
}

/// One position report from a receiver, as every source delivers it.
///
/// Optional fields are nil when the receiver did not say; gpslog never invents a value (no `-1` sentinels).
public struct Fix: Sendable, Equatable {
    /// When the receiver took the fix (UTC).
    public var time: Timestamp
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double
    /// Metres above mean sea level.
    public var altitude: Double?
    /// Estimated horizontal error in metres (gpsd `eph`, or hdop times the receiver's UERE).
    public var horizontalAccuracy: Double?
    /// Estimated vertical error in metres.
    public var verticalAccuracy: Double?
    /// Speed over ground in metres per second.
    public var speed: Double?
    /// Course over ground in degrees true. Not the heading: a boat can drift sideways.
    public var course: Double?
    /// Satellites used in the solution.
    public var satellites: Int?
    /// Dilutions of precision.
    public var hdop: Double?
    /// Vertical dilution of precision.
    public var vdop: Double?
    /// Position (3D) dilution of precision.
    public var pdop: Double?
    /// 2D or 3D.
    public var fixMode: FixMode?

    /// Creates a fix from its parts; what the receiver did not say stays nil.
    public init(
        time: Timestamp, latitude: Double, longitude: Double, altitude: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, speed: Double? = nil,
        course: Double? = nil, satellites: Int? = nil, hdop: Double? = nil, vdop: Double? = nil,
        pdop: Double? = nil, fixMode: FixMode? = nil
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        // Receivers write due north as 360.0 as often as 0.0 (and some send -0.0): the store keeps [0, 360).
        self.course = course.map { $0.isFinite ? Geo.normalizedDegrees($0) : $0 }
        self.satellites = satellites
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.fixMode = fixMode
    }

    /// True when latitude and longitude are finite and within range (`Geo.isValidPosition`).
    public var hasValidPosition: Bool { Geo.isValidPosition(latitude: latitude, longitude: longitude) }

    /// Not exactly 0°, 0° either (`Geo.isPlausiblePosition`): receivers' "no position".
    public var hasPlausiblePosition: Bool { Geo.isPlausiblePosition(latitude: latitude, longitude: longitude) }
}

/// A heading report: where the vessel or vehicle points (NMEA HDT/HDG, gpsd ATT), which is not its course.
public struct HeadingReading: Sendable, Equatable {
    /// When it was read; sources without a time of their own stamp it with the latest fix time.
    public var time: Timestamp
    /// Degrees true, [0, 360).
    public var degrees: Double

    /// Creates a heading; finite degrees are brought into [0, 360).
    public init(time: Timestamp, degrees: Double) {
        self.time = time
        self.degrees = degrees.isFinite ? Geo.normalizedDegrees(degrees) : degrees
    }
}
