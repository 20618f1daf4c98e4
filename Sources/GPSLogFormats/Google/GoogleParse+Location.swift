// SPDX-License-Identifier: MIT
import GPSLogModel

/// A location's members, whichever layout it comes from: Records.json's records, Semantic Location History's raw path
/// points and places, the Timeline export's path points and raw signals' positions.
extension GoogleParse {
    /// What a location's members say, as they stream by: where, when, and the columns that mean the same.
    struct LocationFields {
        var entry = Entry(id: "", latitude: 0, longitude: 0, time: Timestamp(milliseconds: 0))
        var latitude: Double?
        var longitude: Double?
        /// A position written as text (`"52.1°, 5.2°"`, `"geo:52.1,5.2"`).
        var written: (Double, Double)?
        var isoTime: Timestamp?
        var millisecondsTime: Timestamp?
        /// A path point's time as minutes after its segment's start (iOS).
        var offsetTime: Timestamp?

        var position: (Double, Double)? { written ?? latitude.flatMap { lat in longitude.map { (lat, $0) } } }
        var time: Timestamp? { isoTime ?? millisecondsTime ?? offsetTime }
    }

    /// Reads the member whose key was just read when a location of some layout has it, into `f`: the position
    /// (`latitudeE7`/`longitudeE7`, `latE7`/`lngE7`, or `LatLng`, `latLng`, `point` as text), the time (`timestamp`
    /// or `time` in ISO 8601, `timestampMs`), the accuracy (`accuracy`, `accuracyMeters`, `accuracyMetres`), the
    /// altitude (`altitude`, `altitudeMeters`; Android's are above the WGS 84 ellipsoid, kept as they are),
    /// `verticalAccuracy`, the speed (`velocity`, `speedMetersPerSecond`; m/s), `heading`, `deviceTag` (the device
    /// id). False, with nothing read, for any other key.
    mutating func locationMember(_ f: inout LocationFields) throws -> Bool {
        if json.textEquals("latitudeE7") || json.textEquals("latE7") {
            f.latitude = try e7(latitude: true)
        } else if json.textEquals("longitudeE7") || json.textEquals("lngE7") {
            f.longitude = try e7(latitude: false)
        } else if json.textEquals("LatLng") || json.textEquals("latLng") || json.textEquals("point") {
            f.written = try latLngText()
        } else if json.textEquals("timestamp") || json.textEquals("time") {
            f.isoTime = try isoTime() ?? f.isoTime
        } else if json.textEquals("timestampMs") {
            f.millisecondsTime = try millisecondsTime() ?? f.millisecondsTime
        } else if json.textEquals("accuracy") || json.textEquals("accuracyMeters") || json.textEquals("accuracyMetres")
        {
            f.entry.horizontalAccuracy = try measure()
        } else if json.textEquals("altitude") || json.textEquals("altitudeMeters") {
            f.entry.altitude = try looseNumber()
        } else if json.textEquals("verticalAccuracy") {
            f.entry.verticalAccuracy = try measure()
        } else if json.textEquals("velocity") || json.textEquals("speedMetersPerSecond") {
            f.entry.speed = try measure()
        } else if json.textEquals("heading") {
            f.entry.course = try measure().map { Geo.normalizedDegrees($0) }
        } else if json.textEquals("deviceTag") {
            f.entry.deviceID = try tag()
        } else {
            return false
        }
        return true
    }

    /// A location object (its `{` read): its location members read, the rest skipped, and reported with `motion`.
    mutating func locationObject(motion: String? = nil) throws {
        var f = LocationFields()
        f.entry.motion = motion.map { [$0] }
        while try json.next() != .objectEnd {
            if try !locationMember(&f) { try json.skipValue() }
        }
        try report(f)
    }

    /// Reports the location `f` describes, when it has a position and a time.
    mutating func report(_ f: LocationFields) throws {
        try report(f.entry, position: f.position, time: f.time)
    }
}
