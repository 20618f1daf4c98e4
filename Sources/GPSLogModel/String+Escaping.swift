// SPDX-License-Identifier: MIT

extension StringProtocol {
    /// The text with every character that could act on a terminal or a log rather than be read replaced by a JSON-style
    /// escape: C0 controls (`\n`, `\r`, `\t`, `\u001B`, NUL...), DEL, C1 controls (`\u009B` is a CSI), the line
    /// and paragraph separators and the bidirectional overrides and isolates. A name, label, device id or address from
    /// outside then can neither forge a log line nor send an escape sequence to the terminal, and a JSON string keeps
    /// its meaning.
    public var visible: String { escapingControls(keepingLines: false) }

    /// A request's path for a log line: `visible`, with a share link's token (`/s/TOKEN/...`) hidden, since the link
    /// alone opens its session.
    public var visiblePath: String {
        guard hasPrefix("/s/") else { return visible }
        let rest = dropFirst(3)
        return ("/s/***" + rest[(rest.firstIndex(of: "/") ?? rest.endIndex)...]).visible
    }

    /// `visible`, except that line feeds and tabs stay: for whole messages whose own lines and columns are ours
    /// (the values inside them are escaped with `visible` first).
    public var visibleKeepingLines: String { escapingControls(keepingLines: true) }

    private func escapingControls(keepingLines: Bool) -> String {
        // The common case, plain text, is returned as it is.
        guard unicodeScalars.contains(where: { Self.needsEscape($0, keepingLines: keepingLines) }) else {
            return String(self)
        }
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            guard Self.needsEscape(scalar, keepingLines: keepingLines) else {
                out.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let escaped: String =
                switch scalar {
                case "\n": "\\n"
                case "\r": "\\r"
                case "\t": "\\t"
                default: "\\u" + String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex
                }
            out.append(contentsOf: escaped.unicodeScalars)
        }
        return String(out)
    }

    private static func needsEscape(_ s: Unicode.Scalar, keepingLines: Bool) -> Bool {
        switch s.value {
        case 0x0A, 0x09: !keepingLines
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
