// SPDX-License-Identifier: MIT

extension StringProtocol {
    /// The text without leading and trailing white space (Foundation-free, for names, labels and XML text).
    public var trimmedWhitespace: String {
        var s = self[...]
        while let first = s.first, first.isWhitespace { s.removeFirst() }
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return String(s)
    }
}
