// SPDX-License-Identifier: MIT
import Foundation

/// Wraps a sentence body in `$` and its checksum, for the few synthetic cases real logs do not cover.
public func nmeaSentence(_ body: String) -> String {
    var sum: UInt8 = 0
    for b in body.utf8 { sum ^= b }
    let hex = Array("0123456789ABCDEF")
    return "$" + body + "*" + String(hex[Int(sum >> 4)]) + String(hex[Int(sum & 15)])
}

/// `line` with its UTC time fields moved `seconds` later (GGA, RMC, ZDA, GNS, GST field 1, GLL field 5) and its
/// checksum recomputed: a real log re-stamped as if the receiver had sent it later. Other lines are returned as they
/// are. Times do not wrap past midnight (the callers' logs do not come near it).
public func nmeaShiftingTimes(_ line: String, bySeconds seconds: Int) -> String {
    guard line.hasPrefix("$"), let star = line.lastIndex(of: "*") else { return line }
    var fields = line[line.index(after: line.startIndex)..<star].split(separator: ",", omittingEmptySubsequences: false)
        .map(String.init)
    guard let address = fields.first, address.count >= 5 else { return line }
    let index: Int
    switch address.suffix(3) {
    case "GGA", "RMC", "ZDA", "GNS", "GST": index = 1
    case "GLL": index = 5
    default: return line
    }
    guard index < fields.count else { return line }
    let time = fields[index]
    guard time.count >= 6, let h = Int(time.prefix(2)),
        let m = Int(time.dropFirst(2).prefix(2)), let s = Int(time.dropFirst(4).prefix(2))
    else { return line }
    let total = h * 3600 + m * 60 + s + seconds
    precondition((0..<86_400).contains(total), "shifting \(line) by \(seconds) s crosses midnight")
    let fraction = time.dropFirst(6)
    fields[index] = String(format: "%02d%02d%02d", total / 3600, total / 60 % 60, total % 60) + fraction
    return nmeaSentence(fields.joined(separator: ","))
}
