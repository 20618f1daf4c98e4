// SPDX-License-Identifier: MIT
import Foundation

/// A history map tile's pixels: a 256×256 grid of counts (how many line pixels of the tracks fall in each), drawn
/// from track points in Web Mercator (the map's XYZ tiles), added up from four children for the level above, and
/// stored sparse (see `Schema/025_history_tiles.sql`).
public struct HistoryRaster: Sendable, Equatable {
    /// A tile's width and height in pixels.
    public static let size = 256
    /// The deepest zoom whose tiles are kept; deeper ones are drawn from the entries when asked.
    public static let keptZoom = 13
    /// The zoom of the tiles whose visits are kept (`HistorySpans`): deeper than `keptZoom`, so that a deep tile
    /// reads the passes through its own zoom-16 tile (about 75 points each at walking or cycling speed) and not
    /// every point of its zoom-13 parent (about 600): eight times the visit rows, a few kilobytes an hour.
    public static let spanZoom = 16
    /// The deepest zoom a tile may be asked for.
    public static let maxZoom = 22

    /// Row by row, `size * size` counts.
    public private(set) var counts: [UInt32]

    /// An empty tile.
    public init() { counts = [UInt32](repeating: 0, count: Self.size * Self.size) }

    /// True when no pixel has a track.
    public var isEmpty: Bool { !counts.contains { $0 != 0 } }

    /// How many pixels have a track.
    public var litPixels: Int { counts.reduce(0) { $0 + ($1 == 0 ? 0 : 1) } }

    /// The point's position in pixels on the whole map at `zoom` (x eastward, y southward); latitudes beyond
    /// Web Mercator's ±85.05° are held at its edge.
    public static func pixel(latitude: Double, longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let scale = Double(size) * Double(1 << zoom)
        let lat = min(max(latitude, -85.051_128_78), 85.051_128_78) * .pi / 180
        let x = (longitude + 180) / 360 * scale
        let y = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * scale
        return (x, y)
    }

    /// Counts one pixel (tile coordinates), when it is inside the tile.
    @inline(__always) mutating func count(_ x: Int, _ y: Int) {
        guard x >= 0, y >= 0, x < Self.size, y < Self.size else { return }
        counts[y * Self.size + x] &+= 1
    }

    /// Draws the segment a-b (tile pixel coordinates, which may lie outside the tile): cut to the tile first
    /// (Liang-Barsky), then one count per pixel stepped along its longer axis.
    public mutating func line(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) {
        var (t0, t1) = (0.0, 1.0)
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let edge = Double(Self.size)
        for (p, q) in [(-dx, a.x + 1), (dx, edge - a.x), (-dy, a.y + 1), (dy, edge - a.y)] {
            if p == 0 {
                if q < 0 { return }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { return }
            }
        }
        let (x0, y0) = (a.x + t0 * dx, a.y + t0 * dy)
        let (x1, y1) = (a.x + t1 * dx, a.y + t1 * dy)
        let steps = Int(max(abs(x1 - x0), abs(y1 - y0)).rounded(.up))
        if steps == 0 {
            count(Int(x0.rounded(.down)), Int(y0.rounded(.down)))
            return
        }
        let (sx, sy) = ((x1 - x0) / Double(steps), (y1 - y0) / Double(steps))
        for i in 0...steps {
            count(Int((x0 + sx * Double(i)).rounded(.down)), Int((y0 + sy * Double(i)).rounded(.down)))
        }
    }

    /// Adds a child tile (one of four, `qx`/`qy` 0 or 1) into this one, each 2×2 block of it into one pixel.
    public mutating func add(child: HistoryRaster, qx: Int, qy: Int) {
        let half = Self.size / 2
        for y in 0..<Self.size {
            let row = y * Self.size
            let target = (qy * half + y / 2) * Self.size + qx * half
            for x in 0..<Self.size where child.counts[row + x] != 0 {
                counts[target + x / 2] &+= child.counts[row + x]
            }
        }
    }

    /// The stored form: (pixel index u16, count u32) little-endian for each pixel with a track.
    public var sparse: [UInt8] {
        var out: [UInt8] = []
        for (i, c) in counts.enumerated() where c != 0 {
            out.append(contentsOf: [UInt8(i & 0xFF), UInt8(i >> 8)])
            out.append(contentsOf: [UInt8(c & 0xFF), UInt8((c >> 8) & 0xFF), UInt8((c >> 16) & 0xFF), UInt8(c >> 24)])
        }
        return out
    }

    /// A tile from its stored form; nil when the bytes are not one (a damaged row is drawn again).
    public init?(sparse bytes: UnsafeRawBufferPointer) {
        guard bytes.count % 6 == 0 else { return nil }
        self.init()
        for i in stride(from: 0, to: bytes.count, by: 6) {
            let index = Int(bytes[i]) | Int(bytes[i + 1]) << 8
            counts[index] =
                UInt32(bytes[i + 2]) | UInt32(bytes[i + 3]) << 8 | UInt32(bytes[i + 4]) << 16
                | UInt32(bytes[i + 5]) << 24
        }
    }

    /// The zoom-16 tiles (`spanZoom`) under tile `z/x/y`, or the one holding it when `z` is deeper: first and last
    /// column, first and last row.
    public static func spanRange(z: Int, x: Int, y: Int) -> (Int, Int, Int, Int) {
        let d = spanZoom - z
        if d < 0 { return (x >> -d, x >> -d, y >> -d, y >> -d) }
        return (x << d, ((x + 1) << d) - 1, y << d, ((y + 1) << d) - 1)
    }
}
