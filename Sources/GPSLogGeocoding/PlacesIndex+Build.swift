// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// One populated place as a table gives it, before it is indexed.
public struct PlaceRow: Sendable, Equatable {
    /// The place's name, as the table gives it.
    public var name: String
    /// The first-level administrative division's name, or empty.
    public var region: String
    /// The ISO 3166-1 alpha-2 country code (two capital letters), or empty.
    public var country: String
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double

    /// Creates a row from its parts.
    public init(name: String, region: String, country: String, latitude: Double, longitude: Double) {
        (self.name, self.region, self.country, self.latitude, self.longitude) =
            (name, region, country, latitude, longitude)
    }
}

extension PlacesIndex {
    /// The bytes of an index of `rows` (see the layout on `PlacesIndex`), with `source` saying where they came from.
    /// Deterministic: the same rows, in any order, give the same bytes (sorted by cell, position and names, exact
    /// duplicates once).
    public static func build(_ rows: [PlaceRow], source: String) throws -> [UInt8] {
        struct Item: Equatable {
            var cell: Int
            var latitude: UInt16
            var longitude: UInt16
            var name: [UInt8]
            var region: [UInt8]
            var country: [UInt8]

            func precedes(_ other: Item) -> Bool {
                if cell != other.cell { return cell < other.cell }
                if latitude != other.latitude { return latitude < other.latitude }
                if longitude != other.longitude { return longitude < other.longitude }
                if name != other.name { return name.lexicographicallyPrecedes(other.name) }
                if region != other.region { return region.lexicographicallyPrecedes(other.region) }
                return country.lexicographicallyPrecedes(other.country)
            }
        }
        var items: [Item] = []
        items.reserveCapacity(rows.count)
        for row in rows {
            guard Geo.isValidPosition(latitude: row.latitude, longitude: row.longitude) else {
                throw PlacesError.notBuildable(
                    "\(row.name.visible): \(row.latitude), \(row.longitude) is not a position")
            }
            guard
                row.country.isEmpty
                    || (row.country.utf8.count == 2 && row.country.utf8.allSatisfy { $0 >= 65 && $0 <= 90 })
            else {
                throw PlacesError.notBuildable("\(row.name.visible): '\(row.country.visible)' is not a country code")
            }
            guard row.name.utf8.count <= 0xFFFF, row.region.utf8.count <= 0xFFFF else {
                throw PlacesError.notBuildable("\(row.name.prefix(40).visible)...: a name longer than 65535 bytes")
            }
            guard !(row.name + row.region).utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw PlacesError.notBuildable("\(row.name.visible): a control character in a name")
            }
            let (cell, latitude, longitude) = quantized(row.latitude, row.longitude)
            items.append(
                Item(
                    cell: cell, latitude: latitude, longitude: longitude, name: Array(row.name.utf8),
                    region: Array(row.region.utf8), country: Array(row.country.utf8)))
        }
        items.sort { $0.precedes($1) }
        var unique: [Item] = []
        unique.reserveCapacity(items.count)
        for item in items where unique.last != item { unique.append(item) }

        // Regions (a division and its country), sorted, then the pool: region names first, then place names.
        let regions = Set(unique.map { $0.region + [0] + $0.country }).sorted { $0.lexicographicallyPrecedes($1) }
        guard regions.count <= 0x10000 else {
            throw PlacesError.notBuildable("\(regions.count) regions, more than the 65536 an index can hold")
        }
        let regionIndex = Dictionary(uniqueKeysWithValues: regions.enumerated().map { ($1, $0) })
        var pool: [UInt8] = []
        var poolOffsets: [[UInt8]: UInt32] = [:]
        func intern(_ string: [UInt8]) -> UInt32 {
            if let offset = poolOffsets[string] { return offset }
            let offset = UInt32(pool.count)
            append16(&pool, UInt16(string.count))
            pool += string
            poolOffsets[string] = offset
            return offset
        }

        var cells = [UInt32](repeating: 0, count: cellCount + 1)
        for item in unique { cells[item.cell + 1] += 1 }
        for cell in 0..<cellCount { cells[cell + 1] += cells[cell] }
        var body: [UInt8] = []
        let sourceBytes = Array(source.utf8.prefix(0xFFFF))
        append16(&body, UInt16(sourceBytes.count))
        body += sourceBytes
        for first in cells { append32(&body, first) }
        for region in regions {
            let split = region.firstIndex(of: 0)!
            append32(&body, intern(Array(region[..<split])))
            let country = Array(region[(split + 1)...])
            body += country.isEmpty ? [0, 0] : country
        }
        for item in unique {
            append16(&body, item.latitude)
            append16(&body, item.longitude)
            append32(&body, intern(item.name))
            append16(&body, UInt16(regionIndex[item.region + [0] + item.country]!))
        }
        guard pool.count <= Int(UInt32.max) else { throw PlacesError.notBuildable("names beyond 4 GB") }
        body += pool

        var header = magic
        for value in [version, UInt32(unique.count), UInt32(regions.count), UInt32(pool.count)] {
            append32(&header, value)
        }
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3 }
        append32(&header, UInt32(truncatingIfNeeded: digest))
        append32(&header, UInt32(truncatingIfNeeded: digest >> 32))
        return header + body
    }

    /// The cell of a position (180° E is 180° W) and the position inside it in 1/65536 degree.
    static func quantized(_ latitude: Double, _ longitude: Double) -> (cell: Int, latitude: UInt16, longitude: UInt16) {
        let lon = longitude >= 180 ? longitude - 360 : longitude
        let row = min(rows - 1, Int((latitude + 90).rounded(.down)))
        let column = min(columns - 1, Int((lon + 180).rounded(.down)))
        func fraction(_ value: Double) -> UInt16 { UInt16(min(65535, Int((value * 65536).rounded(.down)))) }
        return (
            row * columns + column, fraction(latitude + 90 - Double(row)), fraction(lon + 180 - Double(column))
        )
    }

    private static func append16(_ bytes: inout [UInt8], _ value: UInt16) {
        bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    private static func append32(_ bytes: inout [UInt8], _ value: UInt32) {
        append16(&bytes, UInt16(truncatingIfNeeded: value))
        append16(&bytes, UInt16(truncatingIfNeeded: value >> 16))
    }
}
