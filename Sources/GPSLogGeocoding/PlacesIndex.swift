// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// gpslog's own index of populated places (`places-world.bin`, or a file `gpslog places build` wrote), answering
/// "the nearest place to this point" by reading only the 1-degree grid cells around the point.
///
/// The layout, little-endian, version 1:
///
///     0   "GPSLOGPL"                    magic
///     8   u32 version, u32 places N, u32 regions R, u32 string pool bytes S
///     24  u64 FNV-1a digest of every byte from 32 on (the index's identity in the address cache)
///     32  u16 length + UTF-8: where the places came from (shown by `gpslog places info`)
///         (180 x 360 + 1) x u32: the first place of each cell, row by row from 90° S, column by column from 180° W
///         R x (u32 pool offset of the region's name, 2 bytes country code)
///         N x (u16 latitude, u16 longitude within the cell in 1/65536 degree, u32 pool offset of the name, u16 region)
///         S bytes: the string pool, each string a u16 length and its UTF-8 bytes
///
/// 10 bytes a place, positions to 1.7 m, strings shared; it is read whole (a few MB) and checked once.
public struct PlacesIndex: Sendable {
    /// A place found in the index.
    public struct Place: Sendable, Equatable {
        /// The place's name.
        public var name: String
        /// The first-level administrative division (a state, a province), or empty.
        public var region: String
        /// The ISO 3166-1 alpha-2 country code, or empty.
        public var country: String
        /// Degrees north, WGS 84, as stored (to about 1.7 m).
        public var latitude: Double
        /// Degrees east, WGS 84, as stored (to about 1.7 m).
        public var longitude: Double
    }

    static let magic = Array("GPSLOGPL".utf8)
    static let version: UInt32 = 1
    static let rows = 180
    static let columns = 360
    static let cellCount = rows * columns
    static let headerSize = 32
    static let regionSize = 6
    static let placeSize = 10

    private let bytes: [UInt8]
    private let cellsAt: Int
    private let regionsAt: Int
    private let placesAt: Int
    private let poolAt: Int
    /// How many places it holds.
    public let count: Int
    /// Where its places came from, as its builder said.
    public let source: String
    /// The FNV-1a digest of its content, which names it in the address cache.
    public let digest: UInt64

    /// Reads an index file; `origin` names it in errors.
    public init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PlacesError.unreadable(path: path)
        }
        try self.init(bytes: [UInt8](data), origin: path)
    }

    /// Checks the whole layout once, so that a lookup never reads outside it: a file cut short, another version, an
    /// offset past the end are refused here with `origin` named.
    public init(bytes: [UInt8], origin: String) throws {
        func fail(_ reason: String) -> PlacesError { .notAnIndex(path: origin, reason: reason) }
        guard bytes.count >= Self.headerSize + 2, Array(bytes[0..<8]) == Self.magic else {
            throw fail("it does not start with GPSLOGPL")
        }
        let version = Self.u32(bytes, 8)
        guard version == Self.version else {
            throw fail("format version \(version), this gpslog reads version \(Self.version)")
        }
        let count = Int(Self.u32(bytes, 12))
        let regionCount = Int(Self.u32(bytes, 16))
        let poolSize = Int(Self.u32(bytes, 20))
        let sourceLength = Int(Self.u16(bytes, Self.headerSize))
        let cellsAt = Self.headerSize + 2 + sourceLength
        let regionsAt = cellsAt + (Self.cellCount + 1) * 4
        let placesAt = regionsAt + regionCount * Self.regionSize
        let poolAt = placesAt + count * Self.placeSize
        guard poolAt + poolSize == bytes.count else {
            throw fail("\(bytes.count) bytes where its header announces \(poolAt + poolSize)")
        }
        guard let source = String(bytes: bytes[(Self.headerSize + 2)..<cellsAt], encoding: .utf8) else {
            throw fail("its source text is not UTF-8")
        }
        (self.bytes, self.count, self.source, digest) = (bytes, count, source, Self.u64(bytes, 24))
        (self.cellsAt, self.regionsAt, self.placesAt, self.poolAt) = (cellsAt, regionsAt, placesAt, poolAt)

        var previous = 0
        for cell in 0...Self.cellCount {
            let first = Int(Self.u32(bytes, cellsAt + cell * 4))
            guard first >= previous, first <= count, cell > 0 || first == 0 else {
                throw fail("its cell table is out of order at cell \(cell)")
            }
            previous = first
        }
        guard previous == count else { throw fail("its cell table ends at \(previous) of \(count) places") }
        for region in 0..<regionCount {
            guard poolRange(Int(Self.u32(bytes, regionsAt + region * Self.regionSize))) != nil else {
                throw fail("region \(region) names no string of its pool")
            }
        }
        for place in 0..<count {
            let at = placesAt + place * Self.placeSize
            guard poolRange(Int(Self.u32(bytes, at + 4))) != nil, Int(Self.u16(bytes, at + 8)) < regionCount else {
                throw fail("place \(place) names no string or region of its own")
            }
        }
    }

    /// The nearest place within `maxDistance` metres (great-circle), or nil. It reads the cells a circle of that
    /// radius touches; of places at the same distance, the first in the index wins, so answers never vary.
    public func nearest(latitude: Double, longitude: Double, within maxDistance: Double) -> (
        place: Place, distance: Double
    )? {
        guard Geo.isValidPosition(latitude: latitude, longitude: longitude) else { return nil }
        var best: (offset: Int, latitude: Double, longitude: Double, distance: Double)?
        // A place is at least its difference in latitude away (along the meridian), and a cell's places are sorted by
        // latitude: a binary search finds the first within reach, and the first beyond it ends the cell.
        let metresPerDegree = Geo.earthRadius * Double.pi / 180
        for (row, column) in Self.cells(around: latitude, longitude, radius: maxDistance) {
            let cell = row * Self.columns + column
            let base = Double(row - 90)
            var low = Int(Self.u32(bytes, cellsAt + cell * 4))
            let end = Int(Self.u32(bytes, cellsAt + (cell + 1) * 4))
            let south =
                (latitude - min(maxDistance, best?.distance ?? .infinity) / metresPerDegree - base) * 65536 - 1.5
            var high = end
            while low < high {
                let middle = (low + high) / 2
                if Double(Self.u16(bytes, placesAt + middle * Self.placeSize)) < south {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            for place in low..<end {
                let at = placesAt + place * Self.placeSize
                let lat = base + (Double(Self.u16(bytes, at)) + 0.5) / 65536
                let reach = min(maxDistance, best?.distance ?? .infinity)
                if (lat - latitude) * metresPerDegree > reach { break }
                if (latitude - lat) * metresPerDegree > reach { continue }
                let lon = Double(column - 180) + (Double(Self.u16(bytes, at + 2)) + 0.5) / 65536
                let d = Geo.distance(lat1: latitude, lon1: longitude, lat2: lat, lon2: lon)
                if d <= maxDistance, d < best?.distance ?? .infinity { best = (at, lat, lon, d) }
            }
        }
        guard let best else { return nil }
        let region = Int(Self.u16(bytes, best.offset + 8)) * Self.regionSize + regionsAt
        let place = Place(
            name: poolString(Int(Self.u32(bytes, best.offset + 4))),
            region: poolString(Int(Self.u32(bytes, region))),
            country: String(decoding: bytes[(region + 4)..<(region + 6)].prefix { $0 != 0 }, as: UTF8.self),
            latitude: best.latitude, longitude: best.longitude)
        return (place, best.distance)
    }

    /// The (row, column) cells that hold every point within `radius` metres of the point: the latitude band, and the
    /// longitude span of a circle on the sphere (Matuschek's bounding box), all columns when it reaches a pole.
    static func cells(around latitude: Double, _ longitude: Double, radius: Double) -> [(Int, Int)] {
        // A little more than the radius: positions are stored to 1/65536 degree.
        let angle = radius / Geo.earthRadius + 0.0001
        let rad = Double.pi / 180
        let south = latitude - angle / rad
        let north = latitude + angle / rad
        let rowRange = max(0, Int((south + 90).rounded(.down)))...min(Self.rows - 1, Int((north + 90).rounded(.down)))
        var columnRange = 0...(Self.columns - 1)
        let ratio = sin(angle) / cos(latitude * rad)
        if north < 90, south > -90, ratio < 1 {
            let span = asin(ratio) / rad
            let west = Int((longitude - span + 180).rounded(.down))
            let east = Int((longitude + span + 180).rounded(.down))
            if east - west < Self.columns - 1 { columnRange = west...east }
        }
        return rowRange.flatMap { row in
            columnRange.map { (row, ($0 % Self.columns + Self.columns) % Self.columns) }
        }
    }

    /// The bytes of the string at `offset` in the pool, or nil when it does not fit inside the pool (checked for
    /// every string at load, so lookups need not check again).
    private func poolRange(_ offset: Int) -> Range<Int>? {
        let start = poolAt + offset
        guard start + 2 <= bytes.count else { return nil }
        let end = start + 2 + Int(Self.u16(bytes, start))
        return end <= bytes.count ? (start + 2)..<end : nil
    }

    /// The string at `offset` in the pool (the builder wrote UTF-8; anything else shows as U+FFFD).
    private func poolString(_ offset: Int) -> String {
        poolRange(offset).map { String(decoding: bytes[$0], as: UTF8.self) } ?? ""
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 { UInt32(u16(b, at)) | UInt32(u16(b, at + 2)) << 16 }
    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(b, at)) | UInt64(u32(b, at + 4)) << 32 }
}
