// SPDX-License-Identifier: MIT

/// Finds the line of each table header and key in a TOML text. TOMLKit reports lines only for syntax errors, and an
/// unknown key or a bad value must name its line too. The text has already parsed, so this reads well-formed TOML
/// only: it follows `[table]` headers, dotted and quoted keys, and skips what multi-line strings and arrays span.
struct LineLocator {
    /// Key path (table names, then the key) -> its 1-based line.
    private(set) var lines: [[String]: Int] = [:]
    /// The `[table]` headers: 1-based line and table path, in order.
    private(set) var headers: [(line: Int, table: [String])] = []

    init(text: String) {
        var table: [String] = []
        var closing: String?  // the delimiter of the multi-line string being skipped
        var depth = 0  // open brackets and braces of a value that spans lines
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if let delimiter = closing {
                guard let end = line.range(of: delimiter) else { continue }
                closing = nil
                line = line[end.upperBound...]
                depth = Self.scanValue(line, depth: depth, closing: &closing)
                continue
            }
            if depth > 0 {
                depth = Self.scanValue(line, depth: depth, closing: &closing)
                continue
            }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                let isArray = trimmed.hasPrefix("[[")
                if let (keys, _) = Self.keyPath(trimmed.dropFirst(isArray ? 2 : 1)) {
                    table = keys
                    headers.append((number, keys))
                    if lines[keys] == nil { lines[keys] = number }
                }
                continue
            }
            guard let (keys, rest) = Self.keyPath(trimmed), rest.first == "=" else { continue }
            for length in 1...keys.count where lines[table + keys.prefix(length)] == nil {
                lines[table + keys.prefix(length)] = number
            }
            depth = Self.scanValue(rest.dropFirst(), depth: 0, closing: &closing)
        }
    }

    func line(of path: [String]) -> Int? { lines[path] }

    /// A dotted key (`a`, `a.b`, `"a b".c`, `'x'`) and what follows it, or nil when the text starts with none.
    static func keyPath(_ text: Substring) -> ([String], Substring)? {
        var keys: [String] = []
        var rest = text
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            guard let first = rest.first else { return nil }
            if first == "\"" || first == "'" {
                var key = ""
                var i = rest.index(after: rest.startIndex)
                var closed = false
                while i < rest.endIndex {
                    let c = rest[i]
                    if c == first {
                        closed = true
                        break
                    }
                    if first == "\"" && c == "\\" {
                        i = rest.index(after: i)
                        if i < rest.endIndex { key.append(rest[i]) }
                    } else {
                        key.append(c)
                    }
                    if i < rest.endIndex { i = rest.index(after: i) }
                }
                guard closed else { return nil }
                keys.append(key)
                rest = rest[rest.index(after: i)...]
            } else {
                let bare = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
                guard !bare.isEmpty else { return nil }
                keys.append(String(bare))
                rest = rest[bare.endIndex...]
            }
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.first == "." {
                rest = rest.dropFirst()
            } else {
                return (keys, rest)
            }
        }
    }

    /// Where the comment after a one-line value starts (its `#`), outside strings; nil when there is none.
    static func commentStart(in value: Substring) -> Substring.Index? {
        var i = value.startIndex
        while i < value.endIndex {
            let c = value[i]
            if c == "#" { return i }
            if c == "\"" || c == "'" {
                // A string: skip to its end (basic strings escape their quote).
                var j = value.index(after: i)
                while j < value.endIndex && value[j] != c {
                    if c == "\"" && value[j] == "\\" { j = value.index(after: j) }
                    if j < value.endIndex { j = value.index(after: j) }
                }
                i = j
            }
            if i < value.endIndex { i = value.index(after: i) }
        }
        return nil
    }

    /// The bracket depth after reading `value`, outside strings and comments; sets `closing` when a multi-line
    /// string opens and does not close on this line.
    static func scanValue(_ value: Substring, depth start: Int, closing: inout String?) -> Int {
        var depth = start
        var i = value.startIndex
        while i < value.endIndex {
            let c = value[i]
            let rest = value[i...]
            if rest.hasPrefix("\"\"\"") || rest.hasPrefix("'''") {
                let delimiter = String(rest.prefix(3))
                let after = value.index(i, offsetBy: 3)
                guard let end = value[after...].range(of: delimiter) else {
                    closing = delimiter
                    return depth
                }
                i = end.upperBound
                continue
            }
            switch c {
            case "#": return depth
            case "[", "{": depth += 1
            case "]", "}": depth -= 1
            case "\"", "'":
                // A one-line string: skip to its end (basic strings escape their quote).
                var j = value.index(after: i)
                while j < value.endIndex && value[j] != c {
                    if c == "\"" && value[j] == "\\" { j = value.index(after: j) }
                    if j < value.endIndex { j = value.index(after: j) }
                }
                i = j
            default: break
            }
            if i < value.endIndex { i = value.index(after: i) }
        }
        return max(depth, 0)
    }
}
