// SPDX-License-Identifier: MIT

// Byte-level field access for NMEA 0183 sentences. Everything here works in place on the caller's buffer:
// a field is a pair of offsets, numbers are parsed digit by digit, nothing allocates.

/// One comma-separated field of a sentence: the bytes `base[start..<end]`.
struct NMEAField {
    let base: UnsafePointer<UInt8>
    let start: Int
    let end: Int

    var isEmpty: Bool { start >= end }
    var count: Int { end - start }

    /// The field's only byte, or 0 when the field is empty or longer than one byte.
    var char: UInt8 { end - start == 1 ? base[start] : 0 }

    /// The field's first byte, or 0 when empty.
    var first: UInt8 { start < end ? base[start] : 0 }

    /// A signed decimal number (`-12.5`, `+3`, `.5`, `007`). Nil for an empty field or any other byte.
    var double: Double? {
        var i = start
        guard i < end else { return nil }
        var negative = false
        if base[i] == 0x2D {
            negative = true
            i += 1
        } else if base[i] == 0x2B {
            i += 1
        }
        var mantissa: UInt64 = 0
        var significant = 0  // digits accumulated into mantissa
        var scale = 0  // digits after the point that went into mantissa
        var dropped = 0  // integer digits beyond 18 significant ones (each one multiplies by 10)
        var seenPoint = false
        var anyDigit = false
        while i < end {
            let c = base[i]
            if c >= 0x30 && c <= 0x39 {
                anyDigit = true
                if significant < 18 {
                    mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                    if mantissa != 0 { significant += 1 }
                    if seenPoint { scale += 1 }
                } else if !seenPoint {
                    dropped += 1
                }
            } else if c == 0x2E && !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            i += 1
        }
        guard anyDigit else { return nil }
        var value = Double(mantissa)
        // Zeros after the point count even while the mantissa is still 0 ("0.000...0001"), so the scale has no bound
        // of its own: the table's largest power at a time (a fuzzer found 0. and 23 zeros out of the table's range).
        while scale > 22 {
            value /= NMEAField.powersOfTen[22]
            scale -= 22
        }
        if scale > 0 { value /= NMEAField.powersOfTen[scale] }
        if dropped > 0 { value *= NMEAField.powersOfTen[min(dropped, 22)] }
        return negative ? -value : value
    }

    /// A number that cannot be below zero (a speed, a DOP, an error estimate): a negative one is garbage and reads as
    /// absent, as the store's rules would refuse it (`speed_not_negative`, `hdop_not_negative`, ...).
    var magnitude: Double? {
        guard let v = double, v >= 0 else { return nil }
        return v
    }

    /// An unsigned decimal integer of at most 9 digits. Nil when empty or not all digits.
    var int: Int? {
        guard start < end, end - start <= 9 else { return nil }
        var v = 0
        for i in start..<end {
            let d = Int(base[i]) &- 0x30
            guard d >= 0 && d <= 9 else { return nil }
            v = v * 10 + d
        }
        return v
    }

    /// `n` digits at offset `at` as an integer, or nil when any is not a digit.
    func digits(at offset: Int, _ n: Int) -> Int? {
        var v = 0
        var i = start + offset
        let stop = i + n
        guard stop <= end else { return nil }
        while i < stop {
            let d = Int(base[i]) &- 0x30
            guard d >= 0 && d <= 9 else { return nil }
            v = v * 10 + d
            i += 1
        }
        return v
    }

    /// UTC time of day `hhmmss[.sss…]` in milliseconds since midnight (extra fraction digits are truncated).
    /// `.empty` for an empty field, `.invalid` for anything that is not a time.
    var timeOfDay: ParsedValue<Int> {
        if isEmpty { return .empty }
        guard count >= 6, let h = digits(at: 0, 2), let m = digits(at: 2, 2), let s = digits(at: 4, 2),
            h < 24, m < 60, s <= 60
        else { return .invalid }
        var ms = 0
        if count > 6 {
            guard base[start + 6] == 0x2E else { return .invalid }
            var scale = 100
            var i = start + 7
            while i < end {
                let d = Int(base[i]) &- 0x30
                guard d >= 0 && d <= 9 else { return .invalid }
                ms += d * scale
                scale /= 10
                i += 1
            }
        }
        return .value(((h * 60 + m) * 60 + s) * 1000 + ms)
    }

    /// An NMEA angle `dddmm.mmmm` plus its hemisphere field (`N`/`S` or `E`/`W`), in signed degrees.
    /// `.empty` when the number or the hemisphere is missing; `.invalid` when malformed or out of range.
    func coordinate(hemisphere: NMEAField, max maxDegrees: Double) -> ParsedValue<Double> {
        if isEmpty || hemisphere.isEmpty { return .empty }
        // Integer part dddmm, then the minutes' fraction, parsed separately so no precision is lost.
        var i = start
        var whole = 0
        var wholeDigits = 0
        while i < end, base[i] != 0x2E {
            let d = Int(base[i]) &- 0x30
            guard d >= 0 && d <= 9, wholeDigits < 6 else { return .invalid }
            whole = whole * 10 + d
            wholeDigits += 1
            i += 1
        }
        guard wholeDigits >= 3 || (wholeDigits >= 1 && whole == 0) else { return .invalid }
        var fraction = 0.0
        if i < end {
            let frac = NMEAField(base: base, start: i, end: end)
            guard let f = frac.double else { return .invalid }
            fraction = f
        }
        let minutes = Double(whole % 100) + fraction
        guard minutes < 60 else { return .invalid }
        let degrees = Double(whole / 100) + minutes / 60
        guard degrees <= maxDegrees else { return .invalid }
        switch hemisphere.char {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): return .value(degrees)
        case UInt8(ascii: "S"), UInt8(ascii: "W"): return .value(-degrees)
        default: return .invalid
        }
    }

    /// A value with its direction letter, `E` positive and `W` negative (magnetic variation, deviation).
    /// Nil when either is empty or malformed.
    func eastWest(_ direction: NMEAField) -> Double? {
        guard let v = double else { return nil }
        switch direction.char {
        case UInt8(ascii: "E"): return v
        case UInt8(ascii: "W"): return -v
        default: return nil
        }
    }

    static let powersOfTen: [Double] = (0...22).map { n in
        var p = 1.0
        for _ in 0..<n { p *= 10 }
        return p
    }
}

/// The outcome of parsing a field that may legitimately be empty.
enum ParsedValue<T> {
    case empty
    case invalid
    case value(T)

    var value: T? {
        if case .value(let v) = self { return v }
        return nil
    }
    var isInvalid: Bool {
        if case .invalid = self { return true }
        return false
    }
}

/// Walks the comma-separated fields of a checksum-verified sentence body (between the address and the `*`).
struct NMEAFieldCursor {
    let base: UnsafePointer<UInt8>
    private var position: Int
    private let end: Int
    private var done: Bool

    /// `start` is the first byte after the address's comma; `end` is the offset of `*`.
    init(base: UnsafePointer<UInt8>, start: Int, end: Int, empty: Bool) {
        self.base = base
        self.position = start
        self.end = end
        self.done = empty
    }

    /// The next field; an empty field once the sentence has no more.
    mutating func next() -> NMEAField {
        if done { return NMEAField(base: base, start: end, end: end) }
        var i = position
        while i < end, base[i] != 0x2C { i += 1 }
        let field = NMEAField(base: base, start: position, end: i)
        if i >= end { done = true } else { position = i + 1 }
        return field
    }

    /// Skips `n` fields.
    mutating func skip(_ n: Int) {
        for _ in 0..<n { _ = next() }
    }
}
