// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSystem

/// A streaming JSON reader (RFC 8259) over a file: one event at a time, the file read in 256 KiB chunks, so memory
/// stays flat whatever the file's size (a GeoJSON track of millions of points); or over bytes already in memory (a
/// request's body). Nothing is built per value: a key or string is in `text` (unescaped, checked UTF-8) until the
/// next event.
///
/// Hostile input is refused with the file, the line and the value's place (`features[3].geometry.coordinates[0]`):
/// nesting deeper than `maxDepth` (a 10,000-deep array), a number that is not finite in a Double (`1e400`) or longer
/// than 63 characters, a literal JSON does not have (`NaN`, `Infinity`), invalid UTF-8, a control character in a
/// string, a file that ends inside a value, anything after the value. A string longer than `maxString` bytes is
/// kept cut (`textOverflowed`); the rest is read and checked but not kept.
public struct JSONStreamReader {
    /// What `next()` read.
    public enum Event: Equatable {
        case objectStart, objectEnd, arrayStart, arrayEnd
        /// A member's key (in `text`).
        case key
        /// A string value (in `text`).
        case string
        case number(Double)
        case bool(Bool)
        case null
        /// The document has ended (nothing but white space after it).
        case end
    }

    /// The file (for messages).
    public let file: String
    /// The line of the last event's first byte (1-based).
    public private(set) var line = 1
    /// The bytes of the last key or string, unescaped.
    public internal(set) var text: [UInt8] = []
    /// The last string was longer than `maxString` and is cut.
    public internal(set) var textOverflowed = false

    private let maxDepth: Int
    let maxString: Int
    /// nil when reading bytes in memory.
    private let input: InputFile?
    var buffer: [UInt8]
    var position = 0
    var filled = 0
    private var atEOF = false
    private var firstChunk = true
    private var rootDone = false

    private enum State: UInt8 { case fresh, afterKey, afterValue }
    private struct Frame {
        var isObject: Bool
        var state: State = .fresh
        /// Elements or members begun so far.
        var count = 0
        /// The member's key (objects).
        var key: [UInt8] = []
    }
    private var frames: [Frame] = []
    /// The last number's characters (kept: one allocation per reader, not per number).
    private(set) var scratch: [UInt8] = []

    /// Opens `file`. Refuses nesting deeper than `maxDepth`, keeps strings up to `maxString` bytes.
    public init(file: String, maxDepth: Int = 64, maxString: Int = 1 << 16) throws {
        self.file = file
        self.maxDepth = maxDepth
        self.maxString = maxString
        input = try InputFile(file)
        buffer = [UInt8](repeating: 0, count: 1 << 18)
        frames.reserveCapacity(maxDepth)
        text.reserveCapacity(256)
    }

    /// Reads `bytes`, all in memory (`source` names them in messages); the same checks and limits as a file's.
    public init(bytes: [UInt8], source: String, maxDepth: Int = 64, maxString: Int = 1 << 16) throws {
        file = source
        self.maxDepth = maxDepth
        self.maxString = maxString
        input = nil
        buffer = bytes
        filled = bytes.count
        atEOF = true
        firstChunk = false
        frames.reserveCapacity(maxDepth)
        text.reserveCapacity(256)
        try checkStart()
    }

    /// Closes the file (a reader is used once; call when done).
    public func close() { input?.close() }

    /// How deep the reader is: 0 outside any array or object.
    public var depth: Int { frames.count }

    /// The place of the current value as people write it: `features[3].properties.time`.
    public var path: String {
        var out = ""
        for f in frames {
            if f.isObject {
                guard f.count > 0 else { continue }
                let key = String(decoding: f.key.prefix(64), as: UTF8.self)
                out += (out.isEmpty ? "" : ".") + key.visible
            } else {
                out += "[\(max(f.count - 1, 0))]"
            }
        }
        return out.isEmpty ? "the top level" : out
    }

    /// True when the last key or string is `literal` (ASCII).
    @inline(__always) public func textEquals(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard text.count == n else { return false }
        return text.withUnsafeBufferPointer { memcmp($0.baseAddress!, literal.utf8Start, n) == 0 }
    }

    /// The last key or string as a String.
    public var string: String { String(decoding: text, as: UTF8.self) }

    /// A refusal at the current place: `reason` and where.
    public func malformed(_ reason: String) -> ImportError {
        .malformed(file: file, line: line, reason: "\(reason) at \(path)")
    }

    // MARK: - Events

    /// The next event.
    public mutating func next() throws -> Event {
        try skipWhitespace()
        guard !frames.isEmpty else {
            if rootDone {
                if try peek() == nil { return .end }
                throw malformed("more after the end of the JSON value")
            }
            rootDone = true
            return try value()
        }
        let i = frames.count - 1
        guard let c = try peek() else { throw truncated() }
        if frames[i].isObject {
            switch frames[i].state {
            case .afterKey:
                guard c == UInt8(ascii: ":") else { throw malformed("':' expected after a key") }
                position += 1
                try skipWhitespace()
                frames[i].state = .afterValue
                return try value()
            case .fresh, .afterValue:
                if c == UInt8(ascii: "}") {
                    position += 1
                    frames.removeLast()
                    return .objectEnd
                }
                if frames[i].state == .afterValue {
                    guard c == UInt8(ascii: ",") else { throw malformed("',' or '}' expected") }
                    position += 1
                    try skipWhitespace()
                }
                guard try peek() == UInt8(ascii: "\"") else {
                    throw try peek() == nil ? truncated() : malformed("a key in double quotes expected")
                }
                position += 1
                try readString()
                frames[i].key.removeAll(keepingCapacity: true)
                frames[i].key.append(contentsOf: text.prefix(64))
                frames[i].count += 1
                frames[i].state = .afterKey
                return .key
            }
        }
        if c == UInt8(ascii: "]") {
            position += 1
            frames.removeLast()
            return .arrayEnd
        }
        if frames[i].state == .afterValue {
            guard c == UInt8(ascii: ",") else { throw malformed("',' or ']' expected") }
            position += 1
            try skipWhitespace()
        }
        frames[i].state = .afterValue
        frames[i].count += 1
        return try value()
    }

    /// Skips the value that starts with the next event (after a key, or in an array): all of it, nested or not.
    public mutating func skipValue() throws {
        let event = try next()
        guard event == .objectStart || event == .arrayStart else {
            if event == .objectEnd || event == .arrayEnd || event == .key || event == .end {
                throw malformed("a value expected")
            }
            return
        }
        try skipRest()
    }

    /// Skips what is left of a value whose first event was `event` (the rest of an array or object; nothing for a
    /// scalar).
    public mutating func skip(_ event: Event) throws {
        if event == .objectStart || event == .arrayStart { try skipRest() }
    }

    /// Skips the rest of the array or object just started.
    public mutating func skipRest() throws {
        let level = frames.count
        while frames.count >= level {
            _ = try next()
        }
    }

    private mutating func value() throws -> Event {
        guard let c = try peek() else { throw truncated() }
        switch c {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard frames.count < maxDepth else { throw malformed("nested deeper than \(maxDepth) levels") }
            position += 1
            frames.append(Frame(isObject: c == UInt8(ascii: "{")))
            return c == UInt8(ascii: "{") ? .objectStart : .arrayStart
        case UInt8(ascii: "\""):
            position += 1
            try readString()
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try readNumber())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            throw malformed("'\(Self.shown(c))' cannot start a JSON value (JSON has no NaN or Infinity)")
        }
    }

    static func shown(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : String(format: "\\x%02X", c)
    }

    private mutating func literal(_ word: StaticString) throws {
        var i = 0
        var word = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)[...]
        while let expected = word.popFirst() {
            guard let c = try peek() else { throw truncated() }
            guard c == expected else { throw malformed("not a JSON literal (true, false or null)") }
            position += 1
            i += 1
        }
        if let c = try peek(), Self.isNumberByte(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) {
            throw malformed("not a JSON literal (true, false or null)")
        }
    }

    // MARK: - Bytes

    func truncated() -> ImportError {
        .malformed(file: file, line: line, reason: "the file ends inside \(path) (truncated?)")
    }

    /// The next byte without taking it; nil at the end of the file.
    @inline(__always) mutating func peek() throws -> UInt8? {
        if position < filled { return buffer[position] }
        return try refill() ? buffer[position] : nil
    }

    /// Reads the next chunk (after `position`); false at the end of the file.
    mutating func refill() throws -> Bool {
        guard let input, !atEOF else { return false }
        position = 0
        filled = 0
        let n = try input.read(into: &buffer)
        if n == 0 {
            atEOF = true
            return false
        }
        filled = n
        if firstChunk {
            firstChunk = false
            try checkStart()
            if position == filled { return try refill() }
        }
        return true
    }

    /// The first bytes: UTF-16 is refused, a UTF-8 byte order mark skipped.
    private mutating func checkStart() throws {
        let n = filled
        if n >= 2 && (buffer[0] == 0xFF && buffer[1] == 0xFE || buffer[0] == 0xFE && buffer[1] == 0xFF) {
            throw ImportError.unsupportedFormat(file: file, detail: InputFile.utf16Refusal)
        }
        if n >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF {
            position = 3  // a UTF-8 byte order mark
        }
    }

    private mutating func skipWhitespace() throws {
        while true {
            while position < filled {
                let c = buffer[position]
                if c == 0x0A {
                    line += 1
                } else if c != 0x20 && c != 0x09 && c != 0x0D {
                    return
                }
                position += 1
            }
            guard try refill() else { return }
        }
    }

    @inline(__always) private static func isNumberByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
    }

    /// A number by JSON's grammar, finite as a Double.
    private mutating func readNumber() throws -> Double {
        scratch.removeAll(keepingCapacity: true)
        while let c = try peek(), Self.isNumberByte(c) {
            guard scratch.count < 64 else { throw malformed("a number longer than 63 characters") }
            scratch.append(c)
            position += 1
        }
        let digits = scratch
        if let c = try peek(), c >= UInt8(ascii: "A") && c != UInt8(ascii: "]") && c != UInt8(ascii: "}") {
            throw malformed("not a number")
        }
        guard JSONNumberGrammar.matches(digits) else {
            throw malformed("'\(String(decoding: digits, as: UTF8.self))' is not a JSON number")
        }
        guard let v = ByteNumber.double(digits) else {
            throw malformed("\(String(decoding: digits, as: UTF8.self)) is not a finite number")
        }
        return v
    }
}
