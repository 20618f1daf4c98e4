// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// Records set aside while a GeoJSON feature streams by, read back in order: a LineString's positions, times and
/// attributes until the last of them comes (RFC 7946 leaves the order of members free: gpslog writes the geometry
/// first, togeojson the properties). Held in memory up to 1 MiB, then in an unlinked temporary file (mode 0600: it
/// holds user data), so memory stays flat whatever the track's length. Records are of one fixed size, or (size 0)
/// each of its own, after a 4-byte length.
final class GeoJSONSpool {
    private let recordSize: Int
    private var buffer: [UInt8] = []
    private var descriptor: Int32 = -1
    private var spilled = 0
    /// Records appended.
    private(set) var count = 0

    /// A spool of records of `recordSize` bytes, or of any size (`0`: `body` of `append` writes the record after
    /// its length is reserved, and the length is filled in).
    init(recordSize: Int) {
        self.recordSize = recordSize
        buffer.reserveCapacity(1 << 12)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Appends one record of `recordSize` bytes (or of any size), written by `body`.
    func append(_ body: (inout [UInt8]) -> Void) throws {
        if recordSize == 0 {
            let start = buffer.count
            buffer.append(contentsOf: [0, 0, 0, 0])
            body(&buffer)
            withUnsafeBytes(of: UInt32(buffer.count - start - 4).littleEndian) { b in
                for i in 0..<4 { buffer[start + i] = b[i] }
            }
        } else {
            body(&buffer)
        }
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
        private var chunkOffset = 0
        /// Records read so far.
        private(set) var read = 0

        fileprivate init(_ spool: GeoJSONSpool) { self.spool = spool }

        /// The next record (without its length), or nil after the last. A record is wholly in the file or wholly in
        /// memory: `spill` writes whole records.
        mutating func next<T>(_ body: (UnsafeRawBufferPointer) -> T) throws -> T? {
            guard read < spool.count else { return nil }
            let inFile = offset < spool.spilled
            var size = spool.recordSize
            var skip = 0
            if size == 0 {
                if inFile { try load(4) }
                let at = inFile ? chunkOffset : offset - spool.spilled
                let length = (inFile ? chunk : spool.buffer).withUnsafeBytes {
                    UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                }
                (size, skip) = (4 + Int(length), 4)
            }
            let result: T
            if inFile {
                try load(size)
                result = chunk.withUnsafeBytes {
                    body(UnsafeRawBufferPointer(rebasing: $0[chunkOffset + skip..<chunkOffset + size]))
                }
                chunkOffset += size
            } else {
                let local = offset - spool.spilled
                result = spool.buffer.withUnsafeBytes {
                    body(UnsafeRawBufferPointer(rebasing: $0[local + skip..<local + size]))
                }
            }
            offset += size
            read += 1
            return result
        }

        /// Makes the `size` bytes at `offset` (in the file) readable at `chunkOffset`.
        private mutating func load(_ size: Int) throws {
            guard chunkOffset + size > chunk.count else { return }
            let want = min(max(1 << 16, size), spool.spilled - offset)
            chunk = [UInt8](repeating: 0, count: want)
            let fd = spool.descriptor
            let start = offset
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(start)) }
            guard n == want, want >= size else {
                throw ExportError.cannotWrite(path: "(GeoJSON scratch file)", reason: "short read")
            }
            chunkOffset = 0
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
