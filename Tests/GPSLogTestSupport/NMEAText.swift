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

/// Writes an NMEA log of `seconds` fixes at 1 Hz (RMC and GGA, from 06:00:00 UTC on 28 May 2026, heading east at
/// about 1 m/s from 46.5 N 7.5 E): a replay at speed 1 that outlasts any test, however starved the test is, so that
/// `stop` is what ends the recording.
public func writeLongNMEALog(_ path: String, seconds: Int = 3600) throws {
    try writeGeneratedFile(path, head: "", count: seconds, tail: "") { i in
        let t = 6 * 3600 + i
        let time = String(format: "%02d%02d%02d.00", t / 3600, t / 60 % 60, t % 60)
        // 1 m east a second: 1/77,000 of a degree at 46.5 N, in minutes.
        let lon = String(format: "007%07.4f", 30 + Double(i) * 60 / 77_000)
        return nmeaSentence("GPRMC,\(time),A,4630.0000,N,\(lon),E,1.9,90.0,280526,,,A") + "\r\n"
            + nmeaSentence("GPGGA,\(time),4630.0000,N,\(lon),E,1,08,0.9,500.0,M,47.0,M,,") + "\r\n"
    }
}
