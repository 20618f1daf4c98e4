// SPDX-License-Identifier: MIT
import Foundation

/// Numbers from raw bytes, without making Strings (the GPX reader's hot path).
enum ByteNumber {
    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The bytes without leading and trailing ASCII white space.
    static func trimmed<C: RandomAccessCollection>(_ bytes: C) -> C.SubSequence where C.Element == UInt8 {
        var s = bytes[...]
        while let f = s.first, isSpace(f) { s.removeFirst() }
        while let l = s.last, isSpace(l) { s.removeLast() }
        return s
    }

    /// A finite decimal number (strtod's syntax, the whole text), else nil.
    static func double<C: RandomAccessCollection>(_ bytes: C) -> Double? where C.Element == UInt8 {
        let t = trimmed(bytes)
        guard !t.isEmpty, t.count < 64 else { return nil }
        if let v = simpleDecimal(t) { return v }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> Double? in
            var i = 0
            for b in t {
                buffer[i] = CChar(bitPattern: b)
                i += 1
            }
            buffer[i] = 0
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(buffer.baseAddress!, &end)
            guard end == buffer.baseAddress! + i, v.isFinite else { return nil }
            return v
        }
    }

    // Written out, not computed: an array of literals is laid out at compile time, where a computed one is
    // initialized lazily and checked for that (`swift_once`) on every number read.
    private static let exactPowers: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// `[-]digits[.digits]` with at most 15 significant digits, exactly: the digits form an integer below 2^53 and
    /// the power of ten is exact, so one division rounds correctly (Clinger's fast path) and the result is the one
    /// strtod gives. Coordinates, elevations and times' numbers in GPX all take this path; anything else is strtod's.
    static func simpleDecimal<C: Collection>(_ t: C) -> Double? where C.Element == UInt8 {
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = -1  // digits after the point, -1 before it
        var negative = false
        var first = true
        for b in t {
            defer { first = false }
            if b >= 48 && b <= 57 {
                digits += 1
                if digits > 15 { return nil }
                mantissa = mantissa * 10 + Int64(b - 48)
                if fraction >= 0 { fraction += 1 }
            } else if b == UInt8(ascii: ".") && fraction < 0 {
                fraction = 0
            } else if b == UInt8(ascii: "-") && first {
                negative = true
            } else {
                return nil
            }
        }
        guard digits > 0, fraction != 0 else { return nil }  // "", "-", "." and "5." go to strtod
        var v = Double(mantissa)
        if fraction > 0 { v /= exactPowers[fraction] }
        return negative ? -v : v
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
