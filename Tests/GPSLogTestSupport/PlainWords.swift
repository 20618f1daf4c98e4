// SPDX-License-Identifier: MIT

/// Whether a message a person reads is free of Swift internals: balanced parentheses, no module prefix, no struct
/// dump (`SingleConnectionFailure(...)`, `Swift.CancellationError error 1.`), and not empty.
public func isPlainForPeople(_ text: String) -> Bool {
    var depth = 0
    for c in text {
        if c == "(" { depth += 1 }
        if c == ")" { depth -= 1 }
        if depth < 0 { return false }
    }
    return depth == 0 && !text.contains("Swift.") && !text.contains("Failure(") && !text.contains("Error(")
        && !text.contains("error 1.") && !text.isEmpty
}
