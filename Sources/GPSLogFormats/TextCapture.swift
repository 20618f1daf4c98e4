// SPDX-License-Identifier: MIT

/// The text of one XML element (a reader's `Field`), collected from the parser's pieces up to a limit: a hostile 200 MB
/// `<name>` costs no more than a real one. Leading white space is dropped as it comes, so padding cannot push the text
/// out; white space past the limit is not more text.
struct TextCapture<Field> {
    /// The element whose text is being collected, and its depth.
    private(set) var field: Field?
    private var depth = 0
    private(set) var bytes: [UInt8] = []
    private var cap = 0
    /// The text was longer than the limit (a number or time that long is refused; a name is cut).
    private(set) var overflowed = false

    init() { bytes.reserveCapacity(256) }

    /// True while an element's text is collected (the elements inside it are not read).
    var isActive: Bool { field != nil }

    /// Starts collecting the text of `field`, an element at `depth`, keeping at most `cap` bytes.
    mutating func begin(_ field: Field, depth: Int, cap: Int = 64) {
        self.field = field
        self.depth = depth
        bytes.removeAll(keepingCapacity: true)
        overflowed = false
        self.cap = cap
    }

    /// At the end of an element at `depth`: the field whose text is now whole, when it was this element.
    mutating func end(depth: Int) -> Field? {
        guard let field, depth == self.depth else { return nil }
        self.field = nil
        return field
    }

    mutating func append(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard field != nil, !overflowed else { return }
        var chunk = chunk[...]
        if bytes.isEmpty {
            guard let first = chunk.firstIndex(where: { !ByteNumber.isSpace($0) }) else { return }
            chunk = chunk[first...]
        }
        let room = cap - bytes.count
        if chunk.count <= room {
            bytes.append(contentsOf: chunk)
        } else {
            bytes.append(contentsOf: chunk.prefix(room))
            overflowed = chunk.dropFirst(room).contains { !ByteNumber.isSpace($0) }
        }
    }

    /// The text without white space around it.
    var trimmed: ArraySlice<UInt8> { ByteNumber.trimmed(bytes) }

    /// The text as a String, nil when blank.
    var string: String? {
        let s = String(decoding: trimmed, as: UTF8.self)
        return s.isEmpty ? nil : s
    }

    /// The text as it is shown in a refusal (cut when it was longer than the limit).
    var shown: String { String(decoding: trimmed, as: UTF8.self) + (overflowed ? "…" : "") }

    /// A finite number; nil when blank; throws `invalid` when the text is not one.
    func number(or invalid: () -> Error) throws -> Double? {
        if trimmed.isEmpty && !overflowed { return nil }
        guard !overflowed, let v = ByteNumber.double(trimmed) else { throw invalid() }
        return v
    }
}

/// How many bytes of an element's text a reader keeps.
enum CaptureLimit {
    /// The most bytes kept of a text of `characters` characters: four UTF-8 bytes each, and one character more, so
    /// the store's `truncated(to:)` still sees it is too long and marks the cut.
    static func bytes(characters: Int) -> Int { characters * 4 + 4 }
}
