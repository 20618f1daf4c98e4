// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSources
import GPSLogTestSupport
import Testing

/// Hardening finding 2: one forward-dated sentence used to move a session to another year and lose every fix after
/// it; ZDA years 2100 and 9999 were stored; random input gave years 2064 to 9026.
@Suite(.ownThreads) struct TimeConsensusTests {
    /// A 1 Hz RMC log of `count` fixes on 2024-05-01 from 06:00:00, with the date of fix `k` replaced.
    static func log(count: Int = 30, replacing: [Int: String] = [:]) -> [String] {
        (0..<count).map { k in
            let t = 6 * 3600 + k
            let time = String(format: "%02d%02d%02d.00", t / 3600, t / 60 % 60, t % 60)
            let date = replacing[k] ?? "010524"
            return nmea("GPRMC,\(time),A,5231.0000,N,00524.0000,E,5.0,90.0,\(date),,,A")
        }
    }

    /// 2031 is past tomorrow: the date is refused, and the fix keeps the date the sentences before it gave.
    @Test func aForwardDatedSentencesDateIsRefusedAndEveryFixKept() {
        let r = decodeLines(Self.log(replacing: [4: "010531"]))  // the fifth says 2031
        #expect(r.fixes.count == 30)
        #expect(r.fixes.allSatisfy { $0.time.iso8601().hasPrefix("2024-05-01") })
        #expect(r.decoder.statistics.implausibleDates == 1)
        #expect(zip(r.fixes, r.fixes.dropFirst()).allSatisfy { $0.time < $1.time })
    }

    /// A date inside the window but far from the fixes around it (a year off, a week-rollover 2019) is held back
    /// and dropped, wherever in the stream it is; every other fix is kept.
    @Test(arguments: [(4, "010523"), (0, "150819"), (1, "150819"), (2, "010525"), (28, "150819"), (29, "010523")])
    func aFixFarFromTheConsensusIsDroppedAndTheRestKept(index: Int, date: String) {
        let r = decodeLines(Self.log(replacing: [index: date]))
        #expect(r.fixes.count == 29, "index \(index)")
        #expect(r.fixes.allSatisfy { $0.time.iso8601().hasPrefix("2024-05-01") })
        #expect(r.decoder.statistics.implausibleTimes == 1)
        #expect(zip(r.fixes, r.fixes.dropFirst()).allSatisfy { $0.time < $1.time })
    }

    /// A real change of timeline (a receiver that was off for a week) is believed once three fixes agree: nothing
    /// is lost.
    @Test func aTimelineThatTheNextFixesConfirmIsKept() {
        let lines =
            Self.log(count: 10)
            + Self.log(count: 10).map { $0 }.enumerated().map { k, _ in
                nmea(String(format: "GPRMC,%02d%02d%02d.00,A,5231.0000,N,00524.0000,E,5.0,90.0,080524,,,A", 7, 0, k))
            }
        let r = decodeLines(lines)
        #expect(r.fixes.count == 20 && r.decoder.statistics.implausibleTimes == 0)
        #expect(r.fixes.last?.time == Timestamp(iso8601: "2024-05-08T07:00:09Z"))
    }

    @Test(arguments: ["2100", "9999", "1970", "1979"])
    func zdaYearsOutsideTheWindowAreRefusedAndTheKnownDateStays(year: String) {
        var lines = Self.log(count: 6)
        lines.insert(nmea("GPZDA,060003.00,01,05,\(year),00,00"), at: 3)
        let r = decodeLines(lines)
        #expect(r.fixes.count == 6 && r.fixes.allSatisfy { $0.time.iso8601().hasPrefix("2024-05-01") })
        #expect(r.decoder.statistics.implausibleDates == 1)
    }

    /// Random garbage with valid checksums never yields a time outside the window.
    @Test func randomDatesNeverLeaveTheWindow() {
        var rng = SplitMix64(seed: 42)
        var lines: [String] = []
        for k in 0..<2000 {
            let dd = Int.random(in: 1...31, using: &rng)
            let mm = Int.random(in: 1...12, using: &rng)
            let yy = Int.random(in: 0...99, using: &rng)
            let date = String(format: "%02d%02d%02d", dd, mm, yy)
            lines.append(
                nmea(
                    String(
                        format: "GPRMC,%02d%02d%02d.00,A,5231.0000,N,00524.0000,E,5.0,90.0,%@,,,A", k / 3600 % 24,
                        k / 60 % 60, k % 60, date)))
            if k % 7 == 0 { lines.append(nmea("GPZDA,000000.00,01,01,\(Int.random(in: 0...9999, using: &rng)),00,00")) }
        }
        let r = decodeLines(lines)
        let window = TimeWindow.current
        #expect(r.fixes.allSatisfy { window.contains($0.time) })
        #expect(r.decoder.statistics.implausibleDates > 0)
    }

    @Test func theWindowEndsADayAfterASetClockAndTwentyYearsAfterTheReleaseOtherwise() {
        let set = Timestamp(iso8601: "2027-03-01T00:00:00Z")!
        #expect(TimeWindow.around(now: set.milliseconds).latest == Timestamp(iso8601: "2027-03-02T00:00:00Z"))
        let unset = TimeWindow.around(now: 0)  // a board without a real-time clock boots in 1970
        #expect(
            unset.latest > Timestamp(iso8601: "2046-01-01T00:00:00Z")!
                && unset.latest < Timestamp(iso8601: "2048-01-01T00:00:00Z")!)
        #expect(unset.earliest == Timestamp(iso8601: "1980-01-01T00:00:00Z"))
    }

    /// gpsd forwards what the receiver says: one report a year ahead used to make every later one look old.
    @Test func gpsdReportsFarFromTheOthersAreDroppedAndTheRestKept() {
        var decoder = GPSDDecoder()
        var fixes: [Fix] = []
        for k in 0..<10 {
            let year = k == 4 ? "2025" : "2024"
            let line = #"{"class":"TPV","mode":3,"time":"\#(year)-05-01T06:00:0\#(k).000Z","lat":52.5,"lon":5.4}"#
            for case .fix(let f) in decoder.decode(line: Array(line.utf8)) { fixes.append(f) }
        }
        #expect(fixes.count == 9 && fixes.allSatisfy { $0.time.iso8601().hasPrefix("2024-") })
        #expect(decoder.implausibleTimes == 1)
    }
}
