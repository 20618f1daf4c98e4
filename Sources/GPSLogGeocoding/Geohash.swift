// SPDX-License-Identifier: MIT

/// Geohash cells: the cache key of reverse geocoding. Precision 7 is about 153 m x 152 m, 6 about 1.2 km x 0.6 km,
/// 5 about 4.9 km square.
public enum Geohash {
    private static let alphabet: [Character] = Array("0123456789bcdefghjkmnpqrstuvwxyz")

    /// The geohash of a point at `precision` characters (1...12).
    public static func encode(latitude: Double, longitude: Double, precision: Int) -> String {
        var latRange = (-90.0, 90.0)
        var lonRange = (-180.0, 180.0)
        var result = ""
        var bit = 0
        var value = 0
        var even = true
        while result.count < precision {
            if even {
                let mid = (lonRange.0 + lonRange.1) / 2
                if longitude >= mid {
                    value = value << 1 | 1
                    lonRange.0 = mid
                } else {
                    value <<= 1
                    lonRange.1 = mid
                }
            } else {
                let mid = (latRange.0 + latRange.1) / 2
                if latitude >= mid {
                    value = value << 1 | 1
                    latRange.0 = mid
                } else {
                    value <<= 1
                    latRange.1 = mid
                }
            }
            even.toggle()
            bit += 1
            if bit == 5 {
                result.append(alphabet[value])
                bit = 0
                value = 0
            }
        }
        return result
    }
}
