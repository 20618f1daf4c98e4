// SPDX-License-Identifier: MIT

/// SplitMix64: a tiny, fast, seedable generator, so imports of the same input give the same ids
/// (the golden exports in `Exports/` depend on it).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// Starts the sequence at `seed`: the same seed gives the same numbers.
    public init(seed: UInt64) { state = seed }
    /// The next 64 bits of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A seed from text (FNV-1a), e.g. a session id.
    public static func seed(from text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h &*= 0x100_0000_01b3
        }
        return h
    }
}

/// UUID strings in gpslog's lower-case, hyphenated form.
public enum Identifier {
    /// A lower-case hex digit.
    @inline(__always) private static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 48 + nibble : 87 + nibble }

    /// A version 7 UUID: 48 bits of Unix milliseconds then random bits. Entries get these because rows are inserted
    /// in time order, so the unique index on EntryID grows at its end instead of splitting random pages.
    public static func uuidV7(time: Timestamp, using rng: inout some RandomNumberGenerator) -> String {
        let ms = UInt64(bitPattern: time.milliseconds) & 0xFFFF_FFFF_FFFF
        let r1 = rng.next() as UInt64
        let r2 = rng.next() as UInt64
        let high = (ms << 16) | 0x7000 | (r1 & 0x0FFF)
        let low = (r2 & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return format(high: high, low: low)
    }

    /// Draws from `rng` what `uuidV7` draws, without making the id (so the ids made after it are the same).
    public static func skipUUIDv7(using rng: inout some RandomNumberGenerator) {
        _ = rng.next() as UInt64
        _ = rng.next() as UInt64
    }

    /// A version 4 (random) UUID. Sessions get these: their short ids (first 8 digits) must differ even for
    /// sessions started in the same minute.
    public static func uuidV4(using rng: inout some RandomNumberGenerator) -> String {
        let high = ((rng.next() as UInt64) & 0xFFFF_FFFF_FFFF_0FFF) | 0x4000
        let low = ((rng.next() as UInt64) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return format(high: high, low: low)
    }

    /// A version 4 UUID from the system's random source.
    public static func uuidV4() -> String {
        var rng = SystemRandomNumberGenerator()
        return uuidV4(using: &rng)
    }

    private static func format(high: UInt64, low: UInt64) -> String {
        // Written straight into the string's storage: one allocation per id (ids are made for every stored fix), two
        // digits a byte from a table.
        String(unsafeUninitializedCapacity: 36) { out in
            hexPairs.withUnsafeBufferPointer { pairs in
                @inline(__always) func put(_ word: UInt64, bytes: Range<Int>, at start: Int) {
                    var j = start
                    for i in bytes {
                        let pair = pairs[Int(truncatingIfNeeded: word >> (56 - 8 * UInt64(i))) & 0xFF]
                        out[j] = UInt8(truncatingIfNeeded: pair >> 8)
                        out[j + 1] = UInt8(truncatingIfNeeded: pair)
                        j += 2
                    }
                }
                put(high, bytes: 0..<4, at: 0)
                out[8] = 0x2D
                put(high, bytes: 4..<6, at: 9)
                out[13] = 0x2D
                put(high, bytes: 6..<8, at: 14)
                out[18] = 0x2D
                put(low, bytes: 0..<2, at: 19)
                out[23] = 0x2D
                put(low, bytes: 2..<8, at: 24)
            }
            return 36
        }
    }

    /// A byte's two lower-case hex digits, the first in the high byte.
    private static let hexPairs: [UInt16] = (0..<256).map {
        UInt16(digit(UInt8($0 >> 4))) << 8 | UInt16(digit(UInt8($0 & 15)))
    }

    /// True for a hyphenated UUID string of 36 characters.
    public static func isUUID(_ text: String) -> Bool {
        uuidForm(text) != nil
    }

    /// `text` as a lower-case hyphenated UUID (`text` itself when it is one already), or nil when it is not a UUID.
    /// An import keeps a file's entry ids through this, once per row: it reads the bytes in place, with no copy
    /// and none of `lowercased()`'s Unicode tables (2.8 % of a CSV import's time, perf).
    public static func canonicalUUID(_ text: String) -> String? {
        switch uuidForm(text) {
        case nil: return nil
        case true?: return text
        case false?: return String(decoding: text.utf8.map { $0 >= 65 && $0 <= 70 ? $0 + 32 : $0 }, as: UTF8.self)
        }
    }

    /// nil when `text` is not a hyphenated UUID; else whether it is lower case already.
    private static func uuidForm(_ text: String) -> Bool? {
        var text = text
        return text.withUTF8 { b -> Bool? in
            guard b.count == 36 else { return nil }
            var lower = true
            for i in 0..<36 {
                let c = b[i]
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    if c != UInt8(ascii: "-") { return nil }
                } else if (c >= 48 && c <= 57) || (c >= 97 && c <= 102) {
                    continue
                } else if c >= 65 && c <= 70 {
                    lower = false
                } else {
                    return nil
                }
            }
            return lower
        }
    }
}
