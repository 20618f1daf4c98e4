// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// Fixed-size records set aside while a GeoJSON feature streams by, read back in order: a LineString's positions
/// until its `coordTimes` come, or its times until its coordinates come (RFC 7946 leaves the order of members
/// free: gpslog writes the geometry first, togeojson the properties). Held in memory up to 1 MiB, then in an
/// unlinked temporary file (mode 0600: it holds user data), so memory stays flat whatever the track's length.
final class GeoJSONSpool {
    private let recordSize: Int
    private var buffer: [UInt8] = []
    private var descriptor: Int32 = -1
    private var spilled = 0
    /// Records appended.
    private(set) var count = 0

    init(recordSize: Int) {
        self.recordSize = recordSize
        buffer.reserveCapacity(1 << 12)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Appends one record of `recordSize` bytes, written by `body`.
    func append(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        count += 1
        if buffer.count >= 1 << 20 { try spill() }
    }

    private func spill() throws {
        if descriptor < 0 {
            do {
                descriptor = try unlinkedScratchFile(in: NSTemporaryDirectory(), prefix: "gpslog-geojson")
            } catch {
                throw ExportError.cannotWrite(path: "(GeoJSON scratch file)", reason: error.reason)
            }
        }
        try OutputFile.writeAll(descriptor, buffer, path: "(GeoJSON scratch file)")
        spilled += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Reads the records back in order, each as a raw buffer valid during the call.
    struct Cursor {
        fileprivate let spool: GeoJSONSpool
        private var offset = 0
        private var chunk: [UInt8] = []
        private var chunkStart = 0
        private var chunkOffset = 0
        /// Records read so far.
        private(set) var read = 0

        fileprivate init(_ spool: GeoJSONSpool) { self.spool = spool }

        /// The next record, or nil after the last.
        mutating func next<T>(_ body: (UnsafeRawBufferPointer) -> T) throws -> T? {
            guard read < spool.count else { return nil }
            let size = spool.recordSize
            if offset < spool.spilled {
                if chunkOffset + size > chunk.count {
                    let want = min(1 << 16, spool.spilled - offset)
                    chunk = [UInt8](repeating: 0, count: want)
                    let fd = spool.descriptor
                    let start = offset
                    let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(start)) }
                    guard n == want else {
                        throw ExportError.cannotWrite(path: "(GeoJSON scratch file)", reason: "short read")
                    }
                    chunkStart = offset
                    chunkOffset = 0
                }
                let result = chunk.withUnsafeBytes {
                    body(UnsafeRawBufferPointer(rebasing: $0[chunkOffset..<chunkOffset + size]))
                }
                chunkOffset += size
                offset += size
                read += 1
                return result
            }
            let local = offset - spool.spilled
            let result = spool.buffer.withUnsafeBytes {
                body(UnsafeRawBufferPointer(rebasing: $0[local..<local + size]))
            }
            offset += size
            read += 1
            return result
        }
    }

    /// A cursor from the first record (`spill` never runs while one reads: records are all appended first).
    func cursor() -> Cursor { Cursor(self) }
}

/// A position as a spool record: longitude, latitude, altitude (NaN: none), and whether it starts a part of a
/// MultiLineString.
struct SpooledPosition {
    static let size = 25

    static func append(_ p: GeoJSONPosition, startsPart: Bool, to b: inout [UInt8]) {
        withUnsafeBytes(of: p.longitude.bitPattern.littleEndian) { b.append(contentsOf: $0) }
        withUnsafeBytes(of: p.latitude.bitPattern.littleEndian) { b.append(contentsOf: $0) }
        withUnsafeBytes(of: (p.altitude ?? .nan).bitPattern.littleEndian) { b.append(contentsOf: $0) }
        b.append(startsPart ? 1 : 0)
    }

    static func read(_ r: UnsafeRawBufferPointer) -> (GeoJSONPosition, startsPart: Bool) {
        func double(_ at: Int) -> Double {
            Double(bitPattern: UInt64(littleEndian: r.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
        }
        let alt = double(16)
        return (GeoJSONPosition(longitude: double(0), latitude: double(8), altitude: alt.isNaN ? nil : alt), r[24] != 0)
    }
}

/// A time as a spool record: milliseconds since 1970, `Int64.min` for none (a `null` in `coordTimes`).
enum SpooledTime {
    static let size = 8

    static func append(_ t: Int64?, to b: inout [UInt8]) {
        withUnsafeBytes(of: (t ?? .min).littleEndian) { b.append(contentsOf: $0) }
    }

    static func read(_ r: UnsafeRawBufferPointer) -> Int64? {
        let v = Int64(littleEndian: r.loadUnaligned(as: Int64.self))
        return v == .min ? nil : v
    }
}
