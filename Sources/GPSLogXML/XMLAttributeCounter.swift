// SPDX-License-Identifier: MIT
import Foundation

/// Counts the attributes (namespace declarations included) of each start tag in the bytes handed to libxml2, before
/// it parses them. libxml2 2.9 compares each attribute and `xmlns` declaration of an element with every one before it
/// (its duplicate checks and `nsPush`): 200,000 `xmlns:pN` on one element took 18 s of CPU, as many plain attributes
/// 19 s. A start tag with more than `limit` is refused before libxml2 reads it. Real files have a handful (a GPX
/// root: 6 or 7).
///
/// A small lexer, not a parser: text is skipped to the next `<` (memchr), quoted values to their closing quote, and
/// comments, CDATA sections and processing instructions to their end, so that an `=` or a quote inside them is not
/// taken for an attribute's; an `=` outside quotes in a start tag is an attribute. Its state carries over from one
/// piece to the next.
struct XMLAttributeCounter {
    /// The most attributes and namespace declarations one element may have.
    static let limit = 1_000

    /// The refusal's words.
    static let refusal =
        "an element with more than \(limit) attributes or namespace declarations (xmlns), which no real file has: refused"

    private enum State {
        /// Between tags.
        case text
        /// Just after `<`.
        case open
        /// Just after `<!`.
        case bang
        /// In a start or end tag, outside quotes.
        case tag
        /// In a quoted attribute value.
        case quoted
        /// In a comment (ends at `-->`), a CDATA section (`]]>`), a processing instruction (`?>`): `closer` run
        /// `needed` times, then `>`; or a declaration (`<!DOCTYPE`: `needed` 0, ends at the first `>`).
        case skipping
    }

    private var state = State.text
    private var quote: UInt8 = 0
    private var closer: UInt8 = 0
    private var needed = 0
    private var run = 0
    private var count = 0

    /// Scans the next piece of the document. Returns nil when every start tag so far is within the limit; else
    /// where in this piece the start tag over it begins (its `<`), or -1 when it began in an earlier piece.
    mutating func scan(_ piece: UnsafeRawBufferPointer) -> Int? {
        guard let base = piece.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let n = piece.count
        var i = 0
        var tagStart = -1
        /// The index just past the first `byte` from `i` on, or nil when the piece has none.
        func after(_ byte: UInt8) -> Int? {
            guard let hit = memchr(base + i, Int32(byte), n - i) else { return nil }
            return UnsafeRawPointer(hit) - UnsafeRawPointer(base) + 1
        }
        while i < n {
            switch state {
            case .text:
                guard let next = after(UInt8(ascii: "<")) else { return nil }
                i = next
                tagStart = i - 1
                state = .open
            case .quoted:
                guard let next = after(quote) else { return nil }
                i = next
                state = .tag
            case .open:
                let c = base[i]
                i += 1
                count = 0
                switch c {
                case UInt8(ascii: "!"): state = .bang
                case UInt8(ascii: "?"): skip(until: UInt8(ascii: "?"), times: 1)
                case UInt8(ascii: ">"): state = .text
                default: state = .tag
                }
            case .bang:
                let c = base[i]
                i += 1
                switch c {
                case UInt8(ascii: "-"): skip(until: UInt8(ascii: "-"), times: 2)
                case UInt8(ascii: "["): skip(until: UInt8(ascii: "]"), times: 2)
                case UInt8(ascii: ">"): state = .text
                default: skip(until: 0, times: 0)
                }
            case .tag:
                let c = base[i]
                i += 1
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    quote = c
                    state = .quoted
                case UInt8(ascii: "="):
                    count += 1
                    if count > Self.limit { return tagStart }
                case UInt8(ascii: ">"): state = .text
                default: break
                }
            case .skipping:
                let c = base[i]
                i += 1
                if c == UInt8(ascii: ">") && run >= needed {
                    state = .text
                } else if c == closer && needed > 0 {
                    run += 1
                } else {
                    run = 0
                }
            }
        }
        return nil
    }

    private mutating func skip(until closer: UInt8, times: Int) {
        state = .skipping
        self.closer = closer
        needed = times
        run = 0
    }
}
