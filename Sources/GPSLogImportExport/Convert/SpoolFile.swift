// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogSystem

/// An append-only scratch file of `SpoolRecord`s: written through a 1 MiB buffer, read back by range. Made by
/// `unlinkedScratchFile` (0600, no name), so only its descriptor names it.
final class SpoolFile {
    /// What errors call it.
    let name: String
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var flushedBytes: Int64 = 0

    /// Creates the file in `folder` (the system's temporary folder when nil).
    init(folder: String? = nil, name: String) throws {
        self.name = name
        do {
            descriptor = try unlinkedScratchFile(in: folder ?? NSTemporaryDirectory(), prefix: "gpslog-\(name)")
        } catch {
            throw ExportError.cannotWrite(path: "(\(name) scratch file)", reason: error.reason)
        }
        buffer.reserveCapacity(1 << 20)
    }

    deinit { close(descriptor) }

    /// The offset the next record will start at.
    var end: Int64 { flushedBytes + Int64(buffer.count) }

    /// Appends one record; returns where it lies.
    @discardableResult
    func append(_ e: Entry) throws -> Range<Int64> {
        let start = end
        SpoolRecord.append(e, to: &buffer)
        let range = start..<end
        if buffer.count >= 1 << 20 { try flush() }
        return range
    }

    /// Writes what is buffered (before reading back).
    func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try buffer.withUnsafeBytes { try writeAll(descriptor, $0, at: flushedBytes) }
        } catch let error as SystemCallError {
            throw ExportError.cannotWrite(path: "(\(name) scratch file)", reason: error.reason)
        }
        flushedBytes += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Reads records of a `SpoolFile` back one at a time, over a list of ranges (each holding whole records), for a
/// reader that pulls: the marks, merged into the track as it streams by.
struct SpoolCursor {
    private let descriptor: Int32
    private let ranges: [Range<Int64>]
    private var rangeIndex = 0
    private var position: Int64
    private var chunk: [UInt8]
    private var filled = 0
    private var offset = 0

    init(descriptor: Int32, ranges: [Range<Int64>], chunkSize: Int = 1 << 16) {
        self.descriptor = descriptor
        self.ranges = ranges
        position = ranges.first?.lowerBound ?? 0
        chunk = [UInt8](repeating: 0, count: chunkSize)
    }

    /// The next record, or nil after the last.
    mutating func next() throws -> Entry? {
        while true {
            let (filled, offset) = (self.filled, self.offset)
            if let (entry, size) = chunk.withUnsafeBytes({
                SpoolRecord.decode(UnsafeRawBufferPointer(rebasing: $0[0..<filled]), at: offset)
            }) {
                self.offset += size
                return entry
            }
            // Not a whole record left: keep the part at the buffer's start and read more.
            let kept = filled - offset
            if kept > 0 && offset > 0 {
                chunk.withUnsafeMutableBytes {
                    $0.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: kept)
                }
            }
            self.filled = kept
            self.offset = 0
            while rangeIndex < ranges.count && position >= ranges[rangeIndex].upperBound {
                rangeIndex += 1
                if rangeIndex < ranges.count { position = ranges[rangeIndex].lowerBound }
            }
            guard rangeIndex < ranges.count else { return nil }
            if kept == chunk.count { chunk += [UInt8](repeating: 0, count: chunk.count) }  // a record larger than it
            let want = Int(min(Int64(chunk.count - kept), ranges[rangeIndex].upperBound - position))
            let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + kept, want, off_t(position)) }
            guard n == want else {
                throw ExportError.cannotWrite(path: "(spool)", reason: "short read of the scratch file")
            }
            position += Int64(want)
            self.filled = kept + want
        }
    }
}

/// Reads records back with large preads into one reused buffer (a record cut by the end of a read moves to the
/// buffer's start; a record larger than the buffer grows it).
struct SpoolReader {
    let descriptor: Int32
    private var chunk: [UInt8]

    init(descriptor: Int32) {
        self.descriptor = descriptor
        chunk = [UInt8](repeating: 0, count: 1 << 20)
    }

    mutating func read(_ range: Range<Int64>, _ body: (Entry) throws -> Void) throws {
        var position = range.lowerBound
        var kept = 0
        while position < range.upperBound {
            if kept == chunk.count { chunk += [UInt8](repeating: 0, count: chunk.count) }
            let want = Int(min(Int64(chunk.count - kept), range.upperBound - position))
            let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + kept, want, off_t(position)) }
            guard n == want else {
                throw ExportError.cannotWrite(path: "(spool)", reason: "short read of the scratch file")
            }
            position += Int64(want)
            let filled = kept + want
            var offset = 0
            try chunk.withUnsafeBytes { all in
                let raw = UnsafeRawBufferPointer(rebasing: all[0..<filled])
                while let (entry, size) = SpoolRecord.decode(raw, at: offset) {
                    offset += size
                    try body(entry)
                }
            }
            kept = filled - offset
            if kept > 0 {
                chunk.withUnsafeMutableBytes {
                    $0.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: kept)
                }
            }
        }
    }
}
