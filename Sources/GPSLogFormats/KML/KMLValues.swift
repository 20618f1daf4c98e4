// SPDX-License-Identifier: MIT
import GPSLogModel

/// KML's `<coordinates>` text read as it streams by: tuples `lon,lat[,alt]` separated by white space (a space after
/// a comma, which some writers put there, continues the tuple), each handed on once whole. A tuple is at most 128
/// bytes: a longer one is not a position (and a hostile megabyte of digits costs nothing).
struct KMLCoordinateScanner {
    /// The tuple read so far (complete when `next` says so).
    private(set) var tuple: [UInt8] = []
    private(set) var overflowed = false

    init() { tuple.reserveCapacity(128) }

    mutating func reset() {
        tuple.removeAll(keepingCapacity: true)
        overflowed = false
    }

    /// Reads `chunk` from `i` on: true when a tuple is complete (in `tuple`; `clear` it once used), with `i` just
    /// past it; false at the end of the chunk.
    mutating func next(_ chunk: UnsafeBufferPointer<UInt8>, from i: inout Int) -> Bool {
        while i < chunk.count {
            let b = chunk[i]
            i += 1
            if ByteNumber.isSpace(b) {
                if !tuple.isEmpty && tuple.last != UInt8(ascii: ",") { return true }
            } else if tuple.count < 128 {
                tuple.append(b)
            } else {
                overflowed = true
            }
        }
        return false
    }

    /// The tuple was used.
    mutating func clear() { tuple.removeAll(keepingCapacity: true) }
}

/// Values of KML text: positions (`lon,lat[,alt]` in `<coordinates>`, `lon lat [alt]` in `gx:coord`) and times.
enum KMLValues {
    /// The position of a tuple, split at `separator` (`,`, or white space for `gx:coord`); nil when it is not two
    /// or three finite numbers with the latitude and longitude in range.
    static func position(_ tuple: ArraySlice<UInt8>, spaces: Bool) -> (lon: Double, lat: Double, alt: Double?)? {
        var numbers: (Double, Double, Double) = (0, 0, 0)
        var count = 0
        var start = tuple.startIndex
        var i = tuple.startIndex
        func take(_ field: ArraySlice<UInt8>) -> Bool {
            guard count < 3, let v = ByteNumber.double(field) else { return false }
            switch count {
            case 0: numbers.0 = v
            case 1: numbers.1 = v
            default: numbers.2 = v
            }
            count += 1
            return true
        }
        while i < tuple.endIndex {
            let b = tuple[i]
            let separates = spaces ? ByteNumber.isSpace(b) : b == UInt8(ascii: ",")
            if separates {
                if !(spaces && i == start) {
                    guard take(tuple[start..<i]) else { return nil }
                }
                start = i + 1
            }
            i += 1
        }
        if start < tuple.endIndex || !spaces {
            guard take(tuple[start..<tuple.endIndex]) else { return nil }
        }
        guard count >= 2, abs(numbers.0) <= 180, abs(numbers.1) <= 90 else { return nil }
        return (numbers.0, numbers.1, count == 3 ? numbers.2 : nil)
    }

    /// A KML time (`xsd:dateTime`, `date`, `gYearMonth` or `gYear`: `2024-03-01T09:03:09Z`, `2024-03-01`,
    /// `2024-03`, `2024`), the first instant of what it names; nil when it is none of them.
    static func time(_ bytes: [UInt8]) -> Timestamp? {
        let t = ByteNumber.trimmed(bytes)
        guard !t.isEmpty, t.count <= 64 else { return nil }
        // The common case, a dateTime without white space around it, is parsed as it is (no copy per point).
        if t.count > 7 && t.count == bytes.count { return Timestamp(iso8601Bytes: bytes) }
        var b = Array(t)
        if b.count == 4 { b += Array("-01-01".utf8) }
        if b.count == 7 && b[4] == UInt8(ascii: "-") { b += Array("-01".utf8) }
        return Timestamp(iso8601Bytes: b)
    }
}
