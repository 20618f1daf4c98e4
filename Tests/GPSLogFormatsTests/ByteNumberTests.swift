// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

@testable import GPSLogFormats

/// The importers' number parser takes a fast path for plain decimals; it must give exactly strtod's double.
@Suite(.ownThreads)
struct ByteNumberTests {
    @Test func theFastPathAgreesWithStrtodBitForBit() {
        var rng = SystemRandomNumberGenerator()
        var samples = [
            "0", "-0.0", "52.8501550", "5.3136167", "-179.9999999", "90", "0.1", "123456789012345",
            "0.000000000000001", "1234567.8901234", "-4", "359.99", "1e5", "5.", ".5", "+1", "1.2.3", "-",
            "", " 52.5 ", "nan", "inf", "0x1p3", "1234567890123456", "9007199254740993",
        ]
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...15, using: &rng)
            var s = String(UInt64.random(in: 0...999_999_999_999_999, using: &rng) % UInt64(pow(10, Double(digits))))
            if Bool.random(using: &rng), s.count > 1 {
                let cut = Int.random(in: 1..<s.count, using: &rng)
                s.insert(".", at: s.index(s.startIndex, offsetBy: cut))
            }
            samples.append(Bool.random(using: &rng) ? "-" + s : s)
        }
        for s in samples {
            let expected: Double? = {
                let t = s.trimmingCharacters(in: .whitespaces)
                guard !t.isEmpty else { return nil }
                var end: UnsafeMutablePointer<CChar>?
                return t.withCString { p in
                    let v = strtod(p, &end)
                    return UnsafePointer(end) == p + strlen(p) && v.isFinite ? v : nil
                }
            }()
            let got = ByteNumber.double(Array(s.utf8))
            #expect(
                got?.bitPattern == expected?.bitPattern,
                "'\(s)': \(String(describing: got)) vs strtod \(String(describing: expected))")
        }
        #expect(ByteNumber.simpleDecimal(Array("52.8501550".utf8)) == 52.850155)
        #expect(ByteNumber.simpleDecimal(Array("1e5".utf8)) == nil)
    }
}
