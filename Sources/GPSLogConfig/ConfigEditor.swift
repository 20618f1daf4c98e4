// SPDX-License-Identifier: MIT
import Foundation

/// Edits a config file's text line by line, so that its comments and layout survive (TOMLKit's encoder would drop
/// them): a key already in its table gets its value replaced on its own line; a new one goes after the table's last
/// key, and a missing table is added at the end.
public struct ConfigEditor {
    /// The text's lines, without their newlines (a final newline makes no empty last line).
    public private(set) var lines: [String]

    /// An editor of `text`, a config file's whole content (empty for a new file).
    public init(text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        self.lines = lines
    }

    /// The text, ending with a newline.
    public var text: String { lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n" }

    /// Sets `key` in `table` (nil: the top level) to `value`; returns the value it replaced, as written there.
    @discardableResult
    public mutating func set(_ key: String, to value: ConfigValue, in table: String?) -> String? {
        let locator = LineLocator(text: text)
        let path = (table.map { [$0] } ?? []) + [key]
        let assignment = TOMLText.key(key) + " = " + value.display
        if let line = locator.line(of: path), !locator.headers.contains(where: { $0.line == line }),
            let equals = lines[line - 1].firstIndex(of: "=")
        {
            let old = lines[line - 1][lines[line - 1].index(after: equals)...]
            // A comment after the old value stays after the new one (`min-distance = 50  # metres`).
            let comment = LineLocator.commentStart(in: old).map { "  " + old[$0...] } ?? ""
            lines[line - 1] = lines[line - 1][..<equals] + "= " + value.display + comment
            return old.trimmingCharacters(in: .whitespaces)
        }
        let headers = locator.headers
        if let table {
            guard let header = headers.first(where: { $0.table == [table] }) else {
                if let last = lines.last, !last.trimmingCharacters(in: .whitespaces).isEmpty { lines.append("") }
                lines += ["[\(TOMLText.key(table))]", assignment]
                return nil
            }
            let end = headers.first { $0.line > header.line }.map { $0.line - 1 } ?? lines.count
            lines.insert(assignment, at: lastContent(from: header.line, to: end))
        } else {
            let end = headers.first.map { $0.line - 1 } ?? lines.count
            let after = lastContent(from: 0, to: end)
            if after > 0 || headers.isEmpty {
                lines.insert(assignment, at: after > 0 ? after : lines.count)
            } else {
                lines.insert(contentsOf: [assignment, ""], at: end)
            }
        }
        return nil
    }

    /// Removes `key` from `table` (nil: the top level) when it is on a line of its own; returns the value it had.
    @discardableResult
    public mutating func remove(_ key: String, in table: String?) -> String? {
        let locator = LineLocator(text: text)
        guard let line = locator.line(of: (table.map { [$0] } ?? []) + [key]),
            !locator.headers.contains(where: { $0.line == line }), let equals = lines[line - 1].firstIndex(of: "=")
        else { return nil }
        let old = lines[line - 1][lines[line - 1].index(after: equals)...].trimmingCharacters(in: .whitespaces)
        lines.remove(at: line - 1)
        return old
    }

    /// The index after the last line in `start..<end` (0-based) that is neither blank nor a comment; `start` when
    /// there is none.
    private func lastContent(from start: Int, to end: Int) -> Int {
        var index = end
        while index > start {
            let trimmed = lines[index - 1].trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty && !trimmed.hasPrefix("#") { return index }
            index -= 1
        }
        return start
    }
}
