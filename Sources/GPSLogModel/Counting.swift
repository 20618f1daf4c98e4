// SPDX-License-Identifier: MIT

/// A count and its noun for people to read: `counted(1, "mark")` is "1 mark", `counted(3, "mark")` "3 marks",
/// `counted(2, "entry", "entries")` "2 entries". English: only one takes the singular (0 marks, 1 mark, 2 marks).
/// - Parameters:
///   - n: the count.
///   - singular: the noun for one.
///   - plural: the plural when it is not the singular with an s.
/// - Returns: the count and the noun, separated by a space.
public func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
}
