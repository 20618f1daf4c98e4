// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// A point or a time waiting in a `KMLPointQueue`: longitude, latitude, altitude (NaN: none) and a flag (a part's
/// first point); a time is kept in `longitude`'s bits.
struct KMLQueuedPoint {
    var longitude: Double
    var latitude: Double
    var altitude: Double
    var flag: UInt8

    init(longitude: Double, latitude: Double, altitude: Double?, flag: Bool = false) {
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude ?? .nan
        self.flag = flag ? 1 : 0
    }

    init(time milliseconds: Int64) {
        self.init(longitude: Double(bitPattern: UInt64(bitPattern: milliseconds)), latitude: 0, altitude: nil)
    }

    var time: Int64 { Int64(bitPattern: longitude.bitPattern) }
}

/// Points first in, first out, held in memory up to 1 MiB and then in an unlinked scratch file (mode 0600: they are
/// the user's track), so memory stays flat whatever waits: a LineString's points until its placemark's time span is
/// known, a `gx:Track`'s `when`s until their `gx:coord`s come (Google Earth and GPSBabel write all the times first).
/// Records may be added while others are read (a `gx:Track` that alternates `when` and `gx:coord`).
final class KMLPointQueue {
    /// Records in memory, newer than any in the file, from `memoryHead` on.
    private var memory: [KMLQueuedPoint] = []
    private var memoryHead = 0
    /// The scratch file, once needed; the records in it from `fileRead` to `fileWrite` (byte offsets) come first.
    private var descriptor: Int32 = -1
    private var fileRead = 0
    private var fileWrite = 0
    /// Records read from the file and not yet taken.
    private var chunk: [KMLQueuedPoint] = []
    private var chunkHead = 0
    /// Records waiting.
    private(set) var count = 0

    private static let stride = MemoryLayout<KMLQueuedPoint>.stride
    private static let memoryLimit = (1 << 20) / stride

    deinit { if descriptor >= 0 { close(descriptor) } }

    var isEmpty: Bool { count == 0 }

    func append(_ point: KMLQueuedPoint) throws {
        memory.append(point)
        count += 1
        if memory.count - memoryHead >= Self.memoryLimit { try spill() }
    }

    /// The oldest record, or nil when none waits.
    func removeFirst() throws -> KMLQueuedPoint? {
        guard count > 0 else { return nil }
        count -= 1
        if chunkHead < chunk.count {
            defer { chunkHead += 1 }
            return chunk[chunkHead]
        }
        if fileRead < fileWrite {
            let records = min(1 << 12, (fileWrite - fileRead) / Self.stride)
            chunk = [KMLQueuedPoint](repeating: KMLQueuedPoint(time: 0), count: records)
            let want = records * Self.stride
            let start = off_t(fileRead)
            let fd = descriptor
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, start) }
            guard n == want else { throw ExportError.cannotWrite(path: "(KML scratch file)", reason: "short read") }
            fileRead += want
            chunkHead = 1
            if fileRead == fileWrite {
                fileRead = 0
                fileWrite = 0
            }
            return chunk[0]
        }
        let point = memory[memoryHead]
        memoryHead += 1
        if memoryHead == memory.count {
            memory.removeAll(keepingCapacity: true)
            memoryHead = 0
        }
        return point
    }

    /// Drops every record (a placemark's points after they were handed on, or refused).
    func removeAll() {
        memory.removeAll(keepingCapacity: true)
        memoryHead = 0
        chunk.removeAll(keepingCapacity: true)
        chunkHead = 0
        fileRead = 0
        fileWrite = 0
        count = 0
    }

    /// Moves the records in memory to the end of the file (they are newer than those there).
    private func spill() throws {
        if descriptor < 0 {
            do {
                descriptor = try unlinkedScratchFile(in: NSTemporaryDirectory(), prefix: "gpslog-kml")
            } catch {
                throw ExportError.cannotWrite(path: "(KML scratch file)", reason: error.reason)
            }
        }
        let fd = descriptor
        var offset = fileWrite
        try memory[memoryHead...].withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset))
                guard n > 0 else {
                    throw ExportError.cannotWrite(
                        path: "(KML scratch file)", reason: String(cString: strerror(errno)))
                }
                done += n
                offset += n
            }
        }
        fileWrite = offset
        memory.removeAll(keepingCapacity: true)
        memoryHead = 0
    }
}
