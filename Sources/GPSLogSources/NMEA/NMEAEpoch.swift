// SPDX-License-Identifier: MIT

import GPSLogModel

/// Everything the sentences of one receiver epoch (one UTC time of day) said, merged into one fix at the end.
struct NMEAEpoch {
    /// Milliseconds since midnight UTC; nil while only untimed sentences (VTG, GSA, …) have arrived.
    var timeOfDay: Int?

    // Position. When several sentences of one epoch carry a valid position, GLL wins over GGA, and GGA over RMC
    // (a later sentence of the same rank replaces an earlier one). Usually they agree; where they do not, this
    // matches what gpsd reports: some receivers repeat the previous second's position in RMC (B&G Zeus: RMC
    // 09:47:37 holds the position of GLL 09:47:36), and gpsd reports GLL, the last sentence of such cycles.
    var hasPosition = false
    var positionRank = 0
    var latitude = 0.0
    var longitude = 0.0

    static let rankRMC = 1
    static let rankGGA = 2
    static let rankGLL = 3

    /// Days since 1970-01-01 from this epoch's RMC (status A) or ZDA.
    var day: Int64?

    /// RMC (valid only).
    var rmcSpeedKnots: Double?
    var rmcCourse: Double?
    /// VTG, used when RMC gives nothing. Metres per second.
    var vtgSpeed: Double?
    var vtgCourse: Double?

    /// GGA (quality > 0 only).
    var altitude: Double?
    var satellites: Int?
    var ggaHDOP: Double?
    /// A differential or RTK solution (GGA quality 2...5, or RMC/GLL mode D, F, R or P).
    var differential = false

    /// GSA.
    var fixMode: FixMode?
    var pdop: Double?
    var gsaHDOP: Double?
    var vdop: Double?

    /// GST standard deviations in metres.
    var latitudeSigma: Double?
    var longitudeSigma: Double?
    var altitudeSigma: Double?

    mutating func setPosition(latitude: Double, longitude: Double, rank: Int) {
        guard rank >= positionRank else { return }
        hasPosition = true
        positionRank = rank
        self.latitude = latitude
        self.longitude = longitude
    }

    // Accuracy when the receiver sends no GST: DOP times a user-equivalent range error (UERE), the model gpsd
    // uses for its `eph`/`epv`. The figures are the ones gpsd's output shows for these logs (TPV eph = hdop × 19 m
    // and epv = vdop × 23 m for plain GPS; a quarter of that, 4.75 m and 5.75 m, for DGPS), i.e. roughly a 95 %
    // radius. gpsd applies the DGPS figure to GGA quality 2 only; we apply it to RTK (quality 4/5, mode F/R) as
    // well, since RTK is at least as good as DGPS. GST, when present, is used instead and gives the receiver's
    // own 1-sigma estimate (sqrt of the latitude and longitude error variances): smaller, and not the same
    // confidence level as the DOP-based figure.
    static let horizontalUERE = 19.0
    static let horizontalUEREDifferential = 4.75
    static let verticalUERE = 23.0
    static let verticalUEREDifferential = 5.75

    /// The fix for this epoch at `time`, or nil without a valid position.
    func makeFix(time: Timestamp) -> Fix? {
        guard hasPosition else { return nil }
        let hdop = gsaHDOP ?? ggaHDOP
        var horizontal: Double?
        if let a = latitudeSigma, let b = longitudeSigma {
            horizontal = (a * a + b * b).squareRoot()
        } else if let h = hdop {
            horizontal = h * (differential ? NMEAEpoch.horizontalUEREDifferential : NMEAEpoch.horizontalUERE)
        }
        var vertical: Double?
        if let s = altitudeSigma {
            vertical = s
        } else if let v = vdop {
            vertical = v * (differential ? NMEAEpoch.verticalUEREDifferential : NMEAEpoch.verticalUERE)
        }
        let speed: Double? = if let knots = rmcSpeedKnots { knots * (1852.0 / 3600.0) } else { vtgSpeed }
        return Fix(
            time: time, latitude: latitude, longitude: longitude, altitude: altitude,
            horizontalAccuracy: horizontal, verticalAccuracy: vertical, speed: speed,
            course: rmcCourse ?? vtgCourse, satellites: satellites, hdop: hdop, vdop: vdop, pdop: pdop,
            fixMode: fixMode)
    }
}
