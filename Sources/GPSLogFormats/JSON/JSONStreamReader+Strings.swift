// SPDX-License-Identifier: MIT
import GPSLogModel

extension JSONStreamReader {
    // MARK: - Strings

    /// Reads a string's content, after its opening quote, into `text`: escapes decoded, kept up to `maxString`
    /// bytes, checked as UTF-8.
    mutating func readString() throws {
        text.removeAll(keepingCapacity: true)
        textOverflowed = false
        var ascii = true
        while true {
            let start = position
            while position < filled {
                let c = buffer[position]
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
                if c >= 0x80 { ascii = false }
                position += 1
            }
            if position > start { keep(buffer[start..<position]) }
            guard position < filled else {
                guard try refill() else { throw truncated() }
                continue
            }
            let c = buffer[position]
            position += 1
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 {
                throw malformed(c == 0x0A ? "a line break inside a string" : "a control character inside a string")
            }
            guard let e = try peek() else { throw truncated() }
            position += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): keep(CollectionOfOne(e))
            case UInt8(ascii: "b"): keep(CollectionOfOne(8))
            case UInt8(ascii: "f"): keep(CollectionOfOne(12))
            case UInt8(ascii: "n"): keep(CollectionOfOne(10))
            case UInt8(ascii: "r"): keep(CollectionOfOne(13))
            case UInt8(ascii: "t"): keep(CollectionOfOne(9))
            case UInt8(ascii: "u"): keep(Array(String(try unicodeEscape()).utf8))
            default: throw malformed("'\\\(Self.shown(e))' is not a JSON escape")
            }
        }
        if textOverflowed {
            // Cut at a character boundary (the rest was read, not kept).
            while let last = text.last, last & 0xC0 == 0x80 { text.removeLast() }
            if let last = text.last, last >= 0xC0 { text.removeLast() }
        }
        if !ascii && String(validating: text, as: UTF8.self) == nil {
            throw malformed("invalid UTF-8 in a string")
        }
    }

    private mutating func keep<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard !textOverflowed else { return }
        let room = maxString - text.count
        if bytes.count <= room {
            text.append(contentsOf: bytes)
        } else {
            text.append(contentsOf: bytes.prefix(room))
            textOverflowed = true
        }
    }

    /// `\uXXXX`, or two of them for a character past U+FFFF.
    private mutating func unicodeEscape() throws -> Character {
        let high = try hex4()
        guard (0xD800...0xDFFF).contains(high) else { return Character(UnicodeScalar(high)!) }
        guard high < 0xDC00, try peek() == UInt8(ascii: "\\") else { throw malformed("a lone UTF-16 surrogate") }
        position += 1
        guard try peek() == UInt8(ascii: "u") else { throw malformed("a lone UTF-16 surrogate") }
        position += 1
        let low = try hex4()
        guard (0xDC00...0xDFFF).contains(low) else { throw malformed("a lone UTF-16 surrogate") }
        return Character(UnicodeScalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!)
    }

    private mutating func hex4() throws -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let c = try peek() else { throw truncated() }
            position += 1
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw malformed("'\\u' needs four hexadecimal digits")
            }
            v = v << 4 | d
        }
        return v
    }
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
enum JSONNumberGrammar {
    static func matches(_ b: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            return i - start
        }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        let leadingZero = i < b.count && b[i] == UInt8(ascii: "0")
        let n = digits()
        guard n > 0, !(leadingZero && n > 1) else { return false }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }
}
