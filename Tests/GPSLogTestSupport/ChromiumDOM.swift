// SPDX-License-Identifier: MIT

/// Reading what a page's scripts left in Chromium's `--dump-dom` output.
public enum ChromiumDOM {
    /// The value of `data-NAME` on the element with `id`; nil when there is no such element or attribute.
    public static func attribute(_ name: String, of id: String, in dom: String) -> String? {
        guard let element = dom.range(of: "id=\"\(id)\"") else { return nil }
        let tagStart = dom[..<element.lowerBound].lastIndex(of: "<") ?? element.lowerBound
        let tag = dom[tagStart...].prefix { $0 != ">" }
        guard let r = tag.range(of: "data-\(name)=\"") else { return nil }
        return String(tag[r.upperBound...].prefix { $0 != "\"" })
    }
}
