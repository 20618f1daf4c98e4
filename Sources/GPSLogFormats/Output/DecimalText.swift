// SPDX-License-Identifier: MIT

/// Fixed-point decimal formatting for exports: at most `places` decimals, trailing zeros trimmed ("52.8501550" is
/// written "52.850155"). Hand-written because it runs for every number of every exported point, and Foundation's
/// `String(format:)` costs an order of magnitude more; the output is also locale-proof. Not named `Decimal`: that
/// would shadow Foundation's `Decimal` in every file that imports both.
public enum DecimalText {
    private static let powers: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// Appends `value` with at most `places` (0...9) decimals.
    public static func append(_ value: Double, places: Int, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        let scale = powers[places]
        var scaled = (abs(value) * scale).rounded()
        if scaled >= 9.2e18 { scaled = 9.2e18 }
        var n = UInt64(scaled)
        if n == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        var fraction = places
        // Drop trailing zeros of the fraction.
        while fraction > 0 && n % 10 == 0 {
            n /= 10
            fraction -= 1
        }
        // Digits are written backwards into a scratch on the stack, then appended in one copy (appending byte by
        // byte costs a uniqueness and capacity check per digit).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { scratch in
            var i = 32
            var count = 0
            repeat {
                i -= 1
                scratch[i] = UInt8(48 + n % 10)
                n /= 10
                count += 1
                if count == fraction && fraction > 0 {
                    i -= 1
                    scratch[i] = UInt8(ascii: ".")
                }
            } while n > 0 || count <= fraction
            if value < 0 {
                i -= 1
                scratch[i] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[i..<32]))
        }
    }

    /// `value` with at most `places` decimals, as a String.
    public static func string(_ value: Double, places: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(value, places: places, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The decimals each kind of number is written with, the same in every format.
public enum Precision {
    /// 7 decimals of a degree: about 1 cm, finer than any GNSS fix.
    public static let coordinate = 7
    /// 2 decimals of a metre: a centimetre.
    public static let altitude = 2
    /// 2 decimals of a metre: a centimetre.
    public static let accuracy = 2
    /// 3 decimals of a metre per second: a millimetre per second.
    public static let speed = 3
    /// 2 decimals of a degree (courses, headings).
    public static let angle = 2
    /// 2 decimals of a dilution of precision.
    public static let dop = 2
    /// 2 decimals of a 0...1 battery level: a whole percent.
    public static let battery = 2
}
