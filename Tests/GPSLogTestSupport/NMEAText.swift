// SPDX-License-Identifier: MIT

/// Wraps a sentence body in `$` and its checksum, for the few synthetic cases real logs do not cover.
public func nmeaSentence(_ body: String) -> String {
    var sum: UInt8 = 0
    for b in body.utf8 { sum ^= b }
    let hex = Array("0123456789ABCDEF")
    return "$" + body + "*" + String(hex[Int(sum >> 4)]) + String(hex[Int(sum & 15)])
}
