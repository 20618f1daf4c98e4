// SPDX-License-Identifier: MIT

import Foundation
import GPSLogModel
import GPSLogSources
import GPSLogTestSupport
import Testing

@Suite("NMEA framing, epochs and dates", .ownThreads)
struct NMEAStreamTests {
    @Test("checksums: either hex case accepted, mismatches and missing ones counted, never fatal")
    func checksums() {
        let good = "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*33"
        let r = decodeLines([
            good,
            "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.6*33",  // one digit changed
            "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5",  // no checksum
            "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*3",  // one hex digit
            "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*33xyz",  // trailing garbage
        ])
        let s = r.decoder.statistics
        #expect(s.lines == 5)
        #expect(s.sentences == 1)
        #expect(s.badChecksum == 1)
        #expect(s.unparsable == 3)
        // Lowercase checksum hex (haicom-305N.log's VTG is *4E).
        let lower = decodeLines(["$GPVTG,86.03,T,,,2.20,N,4.07,K,A*4e"])
        #expect(lower.decoder.statistics.sentences == 1)
    }

    @Test("comments, AIS, proprietary and unused sentence types are ignored")
    func ignored() {
        let r = decodeLines([
            "# Name: GlobalSat BU-353-S4",  // gpsfake metadata
            "!AIVDO,1,1,,B,13`kvwO005wJnb0Lfo:@7P8F05`L,0*5B",  // AIS, saab-r4.log
            "$PGRME,15.0,M,22.5,M,27.0,M*1A",  // Garmin proprietary, garmin-geko201.log
            "$GPGSV,3,1,12,17,72,207,32,28,59,095,31,06,35,347,25,01,29,132,23*7B",  // satellites in view
            "$GPTXT,01,01,02,u-blox ag - www.u-blox.com*50",  // ublox-lea-5h.log
            "",
            "   ",
        ])
        let s = r.decoder.statistics
        #expect(s.lines == 5)
        #expect(s.ignored == 5)
        #expect(s.sentences == 0)
        #expect(s.unparsable == 0)
        #expect(s.badChecksum == 0)
    }

    @Test("run-together sentences are split; truncated ones and NUL bytes are unparsable")
    func garbage() {
        // gp-320fw-2019-04-07-coldboot.log: a GSA and an RMC on one line, a truncated RMC padded with NULs.
        let merged = "$GPGSA,A,1,,,,,,,,,,,,,,,*1E$GPRMC,235949.00,V,0000.0000,N,00000.0000,E,,,161206,,,N*44"
        let truncated = "$GPRMC,000346.03,A,4808" + String(repeating: "\u{0}", count: 12) + "                  "
        let cutOff =
            "$GPGSV,3,1,11,23,87,270,,13,68,270,,24,60,270,"
            + "$GPRMC,000002.00,V,0000.0000,N,00000.0000,E,,,260910,,,N*48"
        let r = decodeLines([merged, truncated, cutOff, ",20,10,090,41*70"])
        let s = r.decoder.statistics
        #expect(s.lines == 4)
        #expect(s.sentences == 3)  // GSA, RMC, RMC
        #expect(s.unparsable == 3)  // NUL-padded RMC, cut-off GSV, headless tail
        #expect(r.fixes.isEmpty)  // all void
    }

    @Test("a NUL inside a sentence is rejected even though it does not change the XOR")
    func nulInsideSentence() {
        let r = decodeLines(["$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A\u{0}*7D"])
        #expect(r.decoder.statistics.unparsable == 1)
        #expect(r.fixes.isEmpty)
    }

    @Test("epochs are grouped by time, whatever the sentence order")
    func orderIndependence() {
        let gga = "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D"
        let gsa = "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*33"
        let rmc = "$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D"
        let a = decodeLines([gga, gsa, rmc]).fixes
        let b = decodeLines([rmc, gga, gsa]).fixes
        #expect(a.count == 1)
        #expect(a == b)
        #expect(a.first?.altitude == 59.9 && a.first?.speed != nil && a.first?.fixMode == .threeD)
    }

    @Test("a fix is emitted when the next epoch starts once three agree on the time, the last one by finish()")
    func emissionTiming() {
        var decoder = NMEADecoder()
        func rmc(_ second: Int) -> String {
            nmea("GPRMC,0307\(second).000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A")
        }
        #expect(decoder.feed(rmc(19)).isEmpty)
        // The first epochs of a stream wait until three agree on the time (a forward-dated first sentence must not
        // set the session's start), then arrive together.
        #expect(decoder.feed(rmc(20)).isEmpty)
        #expect(decoder.feed(rmc(21)).isEmpty)
        let confirmed = decoder.feed(rmc(22))
        #expect(confirmed.count == 3)
        guard case .fix(let first)? = confirmed.first else {
            Issue.record("expected a fix")
            return
        }
        #expect(first.time == iso("2014-12-31T03:07:19Z"))
        // From then on, each epoch's fix comes out when the next epoch starts.
        let next = decoder.feed(rmc(23))
        #expect(next.count == 1)
        if case .fix(let fix)? = next.first {
            #expect(fix.time == iso("2014-12-31T03:07:22Z"))
        } else {
            Issue.record("expected a fix")
        }
        let last = decoder.finish()
        #expect(last.count == 1)
        #expect(decoder.statistics.fixes == 5 && decoder.statistics.implausibleTimes == 0)
    }

    @Test(
        "the closure and array forms of feed deliver the same events",
        .enabled(if: NMEATestData.available, NMEATestData.missingMessage))
    func closureForm() throws {
        let lines = try NMEATestData.lines("bu353s4.log")
        var viaArray = NMEADecoder()
        var viaClosure = NMEADecoder()
        var a: [SourceEvent] = []
        var b: [SourceEvent] = []
        for line in lines {
            a += viaArray.feed(line)
            var copy = line
            copy.withUTF8 { bytes in viaClosure.feed(line: bytes) { b.append($0) } }
        }
        a += viaArray.finish()
        viaClosure.finish { b.append($0) }
        #expect(a.count == 25)
        #expect(a == b)
        #expect(viaArray.statistics == viaClosure.statistics)
    }

    @Test("fixes before the first date wait for it and are dated backwards, across midnight too")
    func pendingDates() {
        let r = decodeLines([
            nmea("GPGGA,235959,5251.0094,N,00518.8172,E,1,12,0.60,-4,M,46.8,M,,"),
            nmea("GPGGA,000000,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"),
            nmea("GPRMC,000001,A,5251.0084,N,00518.8149,E,5.8,235.1,010119,1.4,E,A"),
        ])
        #expect(
            r.fixes.map(\.time) == [
                iso("2018-12-31T23:59:59Z"), iso("2019-01-01T00:00:00Z"), iso("2019-01-01T00:00:01Z"),
            ])
        #expect(r.decoder.statistics.undated == 0)
    }

    @Test("without any date and without an assumed date, fixes are counted as undated")
    func undated() {
        let r = decodeLines([
            nmea("GPGGA,235959,5251.0094,N,00518.8172,E,1,12,0.60,-4,M,46.8,M,,"),
            nmea("GPGGA,000000,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"),
        ])
        #expect(r.fixes.isEmpty)
        #expect(r.decoder.statistics.undated == 2)
        #expect(r.decoder.statistics.fixes == 0)
    }

    @Test("a known date rolls over at midnight when only times follow")
    func rolloverAfterRMC() {
        let r = decodeLines([
            nmea("GPRMC,235959,A,5251.0084,N,00518.8149,E,5.8,235.1,311219,1.4,E,A"),
            nmea("GPGGA,000000,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"),
            nmea("GPGGA,000001,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"),
        ])
        #expect(
            r.fixes.map(\.time) == [
                iso("2019-12-31T23:59:59Z"), iso("2020-01-01T00:00:00Z"), iso("2020-01-01T00:00:01Z"),
            ])
    }

    @Test("a real date overrides the assumed one")
    func realDateWins() {
        let r = decodeLines(
            [
                nmea("GPGGA,120000,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"),
                nmea("GPRMC,120001,A,5251.0084,N,00518.8149,E,5.8,235.1,200818,1.4,E,A"),
                nmea("GPGGA,120002,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"),
            ], assumedDate: (2000, 1, 1))
        // The fix dated by the assumption is 18 years from the real dates after it: held back, then dropped.
        #expect(r.fixes.map(\.time) == [iso("2018-08-20T12:00:01Z"), iso("2018-08-20T12:00:02Z")])
        #expect(r.decoder.statistics.implausibleTimes == 1)
    }
}

@Suite("NMEA logs", .ownThreads, .enabled(if: NMEATestData.available, NMEATestData.missingMessage))
struct NMEALogTests {
    @Test("firefly-II: the 23 GGA with bad checksums are counted; RMC and ZDA still give 23 fixes")
    func fireflyChecksums() throws {
        let r = try NMEATestData.decode("firefly-II.log")
        #expect(r.statistics.badChecksum == 23)
        #expect(r.statistics.sentences == 46)  // 23 RMC + 23 ZDA
        #expect(r.statistics.unparsable == 0)
        #expect(r.fixes.count == 23)
        #expect(r.fixes.allSatisfy { $0.altitude == nil })  // altitude would have come from the bad GGAs
        #expect(r.fixes.first?.time == iso("2010-07-08T00:59:47Z"))
    }

    @Test("gp-320fw cold boot: garbage, NULs and bad checksums are counted and skipped")
    func coldBoot() throws {
        let r = try NMEATestData.decode("gp-320fw-2019-04-07-coldboot.log")
        // Counted independently (a short script splitting lines at '$'/'!' and checking each checksum).
        #expect(r.statistics.lines == 154)
        #expect(r.statistics.sentences == 66)
        #expect(r.statistics.badChecksum == 32)
        #expect(r.statistics.unparsable == 14)
        #expect(r.statistics.ignored == 47)
        // Only the two pre-reboot epochs have positions; after the reboot every RMC is void with junk dates
        // (2006, 2010, 1999) that must not turn into fixes.
        #expect(r.fixes.map(\.time) == [iso("2019-04-07T00:03:43.030Z"), iso("2019-04-07T00:03:45.030Z")])
        #expect(r.statistics.epochsWithoutFix == 18)
    }

    @Test("bundg_zeus_9: HDG becomes true heading with the sentence's variation")
    func bundgHeadings() throws {
        let r = try NMEATestData.decode("bundg_zeus_9.log")
        // Expected values straight from the text: every SDHDG is "heading,,,1.3,E" (no deviation).
        var expected: [Double] = []
        for line in try NMEATestData.lines("bundg_zeus_9.log") where line.hasPrefix("$SDHDG,") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            let magnetic = Double(f[1])!
            let variation = Double(f[4])! * (f[5].hasPrefix("E") ? 1 : -1)
            expected.append(Geo.normalizedDegrees(magnetic + variation))
        }
        #expect(expected.count == 1457)
        // The first 7 arrive before the first date (six before any time, one in the undated GGA epoch 09:47:36
        // before RMC 09:47:37): dropped. From RMC 09:47:37 on, every one is stamped.
        #expect(r.statistics.headingsWithoutTime == 7)
        #expect(r.headings.count == 1450)
        let got = r.headings.map(\.degrees)
        let want = Array(expected.dropFirst(7))
        #expect(got.count == want.count)
        #expect(zip(got, want).allSatisfy { abs($0 - $1) < 1e-9 })
        // Stamped with epoch times: never decreasing, within the fixes' span.
        let times = r.headings.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(times.first! >= r.fixes.first!.time && times.last! <= r.fixes.last!.time)
    }

    @Test("hemi and saab-r4: HDT headings")
    func hdtLogs() throws {
        let hemi = try NMEATestData.decode("hemi.log")
        #expect(hemi.statistics.headings == 4)  // only 4 HDT of 215 are not empty; gpsd's 4 ATT reports agree
        #expect(hemi.headings.map(\.degrees) == [274.07, 274.04, 274.12, 274.11])
        let saab = try NMEATestData.decode("saab-r4.log")
        #expect(saab.headings.count == 12)  // every HEHDT follows a ZDA, so all are stamped
        #expect(saab.statistics.headingsWithoutTime == 0)
        #expect(saab.headings.first?.time == iso("2011-06-01T13:07:11Z"))
    }

    @Test("gpsbabel adddate: GGA only, crossing midnight, dated from the assumed date")
    func gpsbabelAddDate() throws {
        let r = try NMEATestData.decode("gpsbabel-adddate.nmea", assumedDate: (2019, 3, 8))
        // gpsbabel's expected output: No,Latitude,Longitude,Altitude,FIX,HDOP,Satellites,Date,Time
        let csv = try String(contentsOfFile: NMEATestData.path("gpsbabel-adddate.expected.csv"), encoding: .utf8)
        let rows = csv.split(whereSeparator: \.isNewline).dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        #expect(rows.count == 500)
        // gpsbabel keeps row 110 (GGA 23:57:49 with quality 1 but 00 satellites) as a "2d" point; we drop it as
        // gpsd does (its TPV for that sentence is mode 1), so 499 fixes line up with the other 499 rows.
        let kept = rows.filter { $0[8] != "23:57:49" }
        #expect(kept.count == 499)
        #expect(r.fixes.count == 499)
        var rolled = 0
        for (fix, row) in zip(r.fixes, kept) {
            let date = row[7].replacingOccurrences(of: "/", with: "-")
            #expect(fix.time == iso("\(date)T\(row[8])Z"))
            #expect(abs(fix.latitude - Double(row[1])!) < 1e-6)
            #expect(abs(fix.longitude - Double(row[2])!) < 1e-6)
            #expect(abs(fix.altitude! - Double(row[3])!) < 0.051)
            #expect(fix.hdop == Double(row[5]))
            #expect(fix.satellites == Int(row[6]))
            if date == "2019-03-09" { rolled += 1 }
        }
        #expect(rolled == 260)
        #expect(r.fixes.first?.time == iso("2019-03-08T23:56:00Z"))
        #expect(r.fixes.last?.time == iso("2019-03-09T00:04:19Z"))
        // Without a date the same log gives nothing, and says why.
        let undated = try NMEATestData.decode("gpsbabel-adddate.nmea")
        #expect(undated.fixes.isEmpty)
        #expect(undated.statistics.undated == 499)
    }

    @Test("the file reader matches line-by-line feeding, across 64 KiB chunk boundaries")
    func readerMatchesLines() throws {
        // bundg_zeus_9.log is 181 KB with CRLF endings, so lines straddle read(2) chunks.
        let viaReader = try NMEATestData.decode("bundg_zeus_9.log")
        let viaLines = decodeLines(try NMEATestData.lines("bundg_zeus_9.log"))
        #expect(viaReader.fixes == viaLines.fixes)
        #expect(viaReader.headings == viaLines.headings)
        #expect(viaReader.statistics == viaLines.decoder.statistics)
        #expect(viaReader.fixes.count == 149)
    }
}

@Suite("NMEA file reader", .ownThreads)
struct NMEAFileReaderTests {
    func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "nmea-\(UInt64.random(in: 0...UInt64.max)).log"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("CR, LF and CRLF terminators, and a last line without one")
    func lineEndings() throws {
        let a = "$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D"
        let b = "$GPRMC,030720.000,A,3747.0875,S,17518.8938,E,1.15,181.39,311214,,,A*7B"
        let c = "$GPRMC,030721.000,A,3747.0876,S,17518.8934,E,0.89,181.39,311214,,,A*71"
        for separator in ["\n", "\r\n", "\r"] {
            let path = try temporaryFile(Array((a + separator + b + separator + c).utf8))
            defer { try? FileManager.default.removeItem(atPath: path) }
            var fixes: [Fix] = []
            let stats = try NMEAFileReader(path: path).read { if case .fix(let f) = $0 { fixes.append(f) } }
            let expected = ["2014-12-31T03:07:19Z", "2014-12-31T03:07:20Z", "2014-12-31T03:07:21Z"].map(iso)
            #expect(fixes.map(\.time) == expected)
            #expect(stats.lines == 3)
            #expect(stats.sentences == 3)
        }
    }

    @Test("a missing file throws an error naming the path and the errno message")
    func missingFile() {
        let path = "/nonexistent/dir/track.nmea"
        #expect(throws: NMEAFileError.cannotOpen(path: path, message: "No such file or directory")) {
            try NMEAFileReader(path: path).read { _ in }
        }
        let error = NMEAFileError.cannotOpen(path: path, message: "No such file or directory")
        #expect(
            error.errorDescription == "Cannot open NMEA file /nonexistent/dir/track.nmea: No such file or directory")
    }

    @Test("reading a directory fails with a read error")
    func directory() {
        #expect(throws: NMEAFileError.readFailed(path: "/tmp", message: "Is a directory")) {
            try NMEAFileReader(path: "/tmp").read { _ in }
        }
    }

    @Test("errors thrown by the callback stop reading and propagate")
    func callbackError() throws {
        struct Stop: Error {}
        let a = "$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D\n"
        let b = "$GPRMC,030720.000,A,3747.0875,S,17518.8938,E,1.15,181.39,311214,,,A*7B\n"
        let path = try temporaryFile(Array((a + b + a).utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var count = 0
        #expect(throws: Stop.self) {
            try NMEAFileReader(path: path).read { _ in
                count += 1
                throw Stop()
            }
        }
        #expect(count == 1)
    }

    @Test("a very long line without terminators is cut, counted and survived")
    func longLine() throws {
        var bytes = Array(repeating: UInt8(ascii: "x"), count: 200_000)
        bytes += Array("\n$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D\n".utf8)
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var fixes = 0
        let stats = try NMEAFileReader(path: path).read { if case .fix = $0 { fixes += 1 } }
        #expect(fixes == 1)
        #expect(stats.unparsable >= 1)
        #expect(stats.sentences == 1)
    }
}
