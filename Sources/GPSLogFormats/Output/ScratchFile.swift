// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// Bytes set aside while a track streams by, copied into the output afterwards: GeoJSON puts a track's times after
/// all of its coordinates, and writing both from one read of the track costs a third of reading it three times.
///
/// Held in memory up to `limit` bytes, then spilled to an unlinked temporary file (mode 0600: it holds user data),
/// so memory stays flat whatever the track's length.
public final class ScratchFile: ByteSink {
    private var buffer: [UInt8] = []
    private let limit: Int
    private var descriptor: Int32 = -1
    private var spilled = 0

    /// Holds up to `limit` bytes in memory.
    public init(limit: Int = 1 << 20) {
        self.limit = limit
        buffer.reserveCapacity(min(limit, 1 << 16))
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Appends through a closure that writes into the buffer directly.
    @inline(__always) public func append(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        if buffer.count >= limit { try spill() }
    }

    private func spill() throws {
        if descriptor < 0 {
            do {
                descriptor = try unlinkedScratchFile(in: NSTemporaryDirectory(), prefix: "gpslog-scratch")
            } catch {
                throw ExportError.cannotWrite(path: "(scratch file)", reason: error.reason)
            }
        }
        try OutputFile.writeAll(descriptor, buffer, path: "(scratch file)")
        spilled += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Copies everything appended so far into `out`, in order.
    public func copy(to out: any ByteSink) throws {
        if spilled > 0 {
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            var offset = 0
            while offset < spilled {
                let want = min(chunk.count, spilled - offset)
                let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, want, off_t(offset)) }
                guard n > 0 else { throw ExportError.cannotWrite(path: "(scratch file)", reason: "short read") }
                try out.append { $0.append(contentsOf: chunk[0..<n]) }
                offset += n
            }
        }
        try out.append { [buffer] in $0.append(contentsOf: buffer) }
    }
}
