// SPDX-License-Identifier: MIT

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Spherical-earth helpers shared by the sampler, the store's summaries and the exporters.
public enum Geo {
    /// Valid latitudes in degrees: the Schema's `latitude_in_range` CHECK (`Latitude BETWEEN -90 AND 90`).
    public static let latitudeRange: ClosedRange<Double> = -90...90
    /// Valid longitudes in degrees: the Schema's `longitude_in_range` CHECK (`Longitude BETWEEN -180 AND 180`).
    public static let longitudeRange: ClosedRange<Double> = -180...180

    /// The one rule for a valid position, used wherever a position is checked (sampler, store, spool, payloads,
    /// geocoders) and tested against the Schema's CHECKs. NaN and the infinities are outside every range.
    @inline(__always) public static func isValidPosition(latitude: Double, longitude: Double) -> Bool {
        latitudeRange.contains(latitude) && longitudeRange.contains(longitude)
    }

    /// A valid position that is not exactly 0°, 0°: receivers and firmware report "no position" that way, and one
    /// such fix adds two 5,000 km legs to a track. A real fix at the equator on the prime meridian has decimals.
    @inline(__always) public static func isPlausiblePosition(latitude: Double, longitude: Double) -> Bool {
        isValidPosition(latitude: latitude, longitude: longitude) && (latitude != 0 || longitude != 0)
    }

    /// The IUGG mean Earth radius in metres, the usual choice for haversine distances.
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres between two points given in degrees (haversine formula, which stays
    /// accurate for the few-metre steps between consecutive GPS fixes, unlike the spherical law of cosines).
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad
        let dLon = (lon2 - lon1) * rad
        let s1 = sin(dLat / 2)
        let s2 = sin(dLon / 2)
        let a = s1 * s1 + cos(lat1 * rad) * cos(lat2 * rad) * s2 * s2
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }

    /// Initial bearing in degrees [0, 360) from the first point to the second.
    public static func bearing(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let rad = Double.pi / 180
        let y = sin((lon2 - lon1) * rad) * cos(lat2 * rad)
        let x = cos(lat1 * rad) * sin(lat2 * rad) - sin(lat1 * rad) * cos(lat2 * rad) * cos((lon2 - lon1) * rad)
        let deg = atan2(y, x) / rad
        return deg < 0 ? deg + 360 : deg
    }

    /// The smallest angle in degrees between two directions (0...180).
    public static func angleBetween(_ a: Double, _ b: Double) -> Double {
        let d = abs((a - b).truncatingRemainder(dividingBy: 360))
        return d > 180 ? 360 - d : d
    }

    /// Normalises an angle in degrees into [0, 360).
    public static func normalizedDegrees(_ a: Double) -> Double {
        var r = a.truncatingRemainder(dividingBy: 360)
        if r < 0 { r += 360 }  // a tiny negative angle rounds up to 360 here
        return r >= 360 || r == 0 ? 0 : r
    }
}
