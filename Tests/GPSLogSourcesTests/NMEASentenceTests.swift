// SPDX-License-Identifier: MIT

import GPSLogModel
import GPSLogSources
import GPSLogTestSupport
import Testing

/// Wraps a sentence body in `$` and its checksum.
func nmea(_ body: String) -> String { nmeaSentence(body) }

/// Feeds lines and finishes, returning everything emitted plus the decoder (for its statistics).
func decodeLines(
    _ lines: [String], assumedDate: (year: Int, month: Int, day: Int)? = nil
) -> (fixes: [Fix], headings: [HeadingReading], decoder: NMEADecoder) {
    var decoder = NMEADecoder(assumedDate: assumedDate)
    var events: [SourceEvent] = []
    for line in lines { events += decoder.feed(line) }
    events += decoder.finish()
    var fixes: [Fix] = []
    var headings: [HeadingReading] = []
    for e in events {
        switch e {
        case .fix(let f): fixes.append(f)
        case .heading(let h): headings.append(h)
        case .resumed: Issue.record("a decoder of text never resumes")
        }
    }
    return (fixes, headings, decoder)
}

func iso(_ text: String) -> Timestamp { Timestamp(iso8601: text)! }

@Suite("NMEA sentences", .ownThreads)
struct NMEASentenceTests {
    // MARK: RMC

    @Test("RMC gives time, date, position, speed in m/s and course")
    func rmc() throws {
        // bu353s4.log (SiRF-IV, Hamilton NZ): southern and eastern hemispheres.
        let r = decodeLines(["$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D"])
        let fix = try #require(r.fixes.first)
        #expect(r.fixes.count == 1)
        #expect(fix.time == iso("2014-12-31T03:07:19Z"))
        #expect(abs(fix.latitude - -37.784788333) < 1e-9)
        #expect(abs(fix.longitude - 175.314896667) < 1e-9)
        #expect(abs(fix.speed! - 0.69 * 1852 / 3600) < 1e-12)
        #expect(fix.course == 181.39)
        #expect(fix.altitude == nil)
        #expect(fix.horizontalAccuracy == nil)
        #expect(r.decoder.statistics.sentences == 1)
        #expect(r.decoder.statistics.fixes == 1)
    }

    @Test("RMC with status V or simulator mode S is not a position")
    func rmcVoidAndSimulator() {
        // garmin-geko201.log: simulator mode, status V and mode S while "moving" at 10.8 kn.
        let garmin = decodeLines(["$GPRMC,214350,V,4023.8600,N,00339.1630,W,10.8,0.0,140605,2.5,W,S*21"])
        #expect(garmin.fixes.isEmpty)
        #expect(garmin.decoder.statistics.epochsWithoutFix == 1)
        // Status A but NMEA 2.3 mode S (simulator) or N (not valid): still no position.
        for mode in ["S", "N"] {
            let r = decodeLines([nmea("GPRMC,214350,A,4023.8600,N,00339.1630,W,10.8,0.0,140605,2.5,W,\(mode)")])
            #expect(r.fixes.isEmpty)
        }
        // Mode A with status A is a position.
        let ok = decodeLines([nmea("GPRMC,214350,A,4023.8600,N,00339.1630,W,10.8,0.0,140605,2.5,W,A")])
        #expect(ok.fixes.count == 1)
        #expect(ok.fixes.first?.time == iso("2005-06-14T21:43:50Z"))
    }

    @Test("two-digit RMC years: 80-99 are 19xx, others 20xx, with no 1024-week shift; past tomorrow is refused")
    func twoDigitYears() {
        let cases = [("220899", "1999-08-22"), ("010180", "1980-01-01"), ("070419", "2019-04-07")]
        for (date, expected) in cases {
            let r = decodeLines([nmea("GPRMC,000425.00,A,4808.9993,N,01135.0798,E,0.1,0.0,\(date),,,A")])
            #expect(r.fixes.first?.time == iso(expected + "T00:04:25Z"), "\(date)")
        }
        // Year 79 and 70 are 2079 and 2070: after tomorrow, so the date is refused and, with no other date, the fix
        // is undated.
        for date in ["311279", "010170"] {
            let r = decodeLines([nmea("GPRMC,000425.00,A,4808.9993,N,01135.0798,E,0.1,0.0,\(date),,,A")])
            #expect(
                r.fixes.isEmpty && r.decoder.statistics.implausibleDates == 1 && r.decoder.statistics.undated == 1,
                "\(date)")
        }
    }

    @Test("NMEA 4.1 RMC with navigation status, and the GN talker")
    func rmcNMEA41() throws {
        // ublox-neo-m9n-nmea.log: mode D (differential), nav status V, empty course.
        let r = decodeLines(["$GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V*0E"])
        let fix = try #require(r.fixes.first)
        #expect(fix.time == iso("2020-07-11T22:37:45Z"))
        #expect(abs(fix.latitude - (38 + 6.62964 / 60)) < 1e-12)
        #expect(abs(fix.longitude - -(122 + 37.61382 / 60)) < 1e-12)
        #expect(fix.course == nil)
    }

    // MARK: GGA

    @Test("GGA gives altitude, satellites, hdop and an hdop based accuracy")
    func gga() throws {
        // bu353s4.log; GGA has no date, so the decoder needs one.
        let line = "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D"
        let r = decodeLines([line], assumedDate: (2014, 12, 31))
        let fix = try #require(r.fixes.first)
        #expect(fix.time == iso("2014-12-31T03:07:19Z"))
        #expect(abs(fix.latitude - -37.784788333) < 1e-9)
        #expect(fix.altitude == 59.9)
        #expect(fix.satellites == 8)
        #expect(fix.hdop == 1.1)
        // gpsd's eph for this epoch is 20.900 (19 m per unit of hdop).
        #expect(abs(fix.horizontalAccuracy! - 20.9) < 1e-9)
        #expect(fix.speed == nil)
        #expect(fix.fixMode == nil)
    }

    @Test("GGA quality 0, and quality 1 from zero satellites, are not positions")
    func ggaNoFix() {
        let r = decodeLines(
            [
                "$GPGGA,,,,,,0,,,,M,,M,,*66",  // hemi.log start: everything empty
                "$GPGGA,194050.00,4221.8237733,N,07101.9411707,W,1,00,3.3,10.835,M,-33.320,M,,*62",  // hemi: 00 sats
            ], assumedDate: (2018, 9, 7))
        #expect(r.fixes.isEmpty)
        #expect(r.decoder.statistics.sentences == 2)
        #expect(r.decoder.statistics.epochsWithoutFix == 1)
    }

    @Test("GGA quality 2 (DGPS) uses the differential error figure")
    func ggaDGPS() throws {
        // humminbird-M37.log, "IN" talker; gpsd's eph there is 4.275 = 0.9 x 4.75.
        let r = decodeLines(
            ["$INGGA,194104,4426.1138,N,07140.5536,W,2,10,0.9,267.9,M,,,,*13"], assumedDate: (2006, 9, 16))
        let fix = try #require(r.fixes.first)
        #expect(abs(fix.horizontalAccuracy! - 4.275) < 1e-9)
        #expect(fix.altitude == 267.9)
        #expect(fix.satellites == 10)
    }

    // MARK: GLL

    @Test("GLL with status A is a position")
    func gll() throws {
        // ublox-lea-5h.log.
        let r = decodeLines(["$GPGLL,5155.55322,N,00434.65748,E,085519.00,A,A*65"], assumedDate: (2010, 8, 21))
        let fix = try #require(r.fixes.first)
        #expect(fix.time == iso("2010-08-21T08:55:19Z"))
        #expect(abs(fix.latitude - (51 + 55.55322 / 60)) < 1e-12)
        #expect(abs(fix.longitude - (4 + 34.65748 / 60)) < 1e-12)
        let void = decodeLines([nmea("GPGLL,5155.55322,N,00434.65748,E,085519.00,V,N")], assumedDate: (2010, 8, 21))
        #expect(void.fixes.isEmpty)
    }

    // MARK: VTG, GSA, GST, ZDA

    @Test("VTG gives speed and course when there is no RMC")
    func vtg() throws {
        // hemi.log: GGA + VTG + ZDA, no RMC. The GGA's epoch learns its date from the ZDA that follows.
        let r = decodeLines([
            "$GPGGA,194058.00,4221.8236441,N,07101.9438734,W,1,04,1.4,6.786,M,-33.057,M,,*54",
            "$GPVTG,346.88,T,1.52,M,0.04,N,0.07,K,A*27",
            "$GPZDA,194058.00,07,09,2018,00,00*62",
        ])
        let fix = try #require(r.fixes.first)
        #expect(r.fixes.count == 1)
        #expect(fix.time == iso("2018-09-07T19:40:58Z"))
        #expect(fix.course == 346.88)
        #expect(abs(fix.speed! - 0.04 * 1852 / 3600) < 1e-12)
        #expect(fix.altitude == 6.786)
    }

    @Test("GSA gives fix mode and the three DOPs")
    func gsa() throws {
        let r = decodeLines(
            [
                "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D",
                "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*33",
                "$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D",
            ])
        let fix = try #require(r.fixes.first)
        #expect(r.fixes.count == 1)
        #expect(fix.fixMode == .threeD)
        #expect(fix.pdop == 1.8)
        #expect(fix.hdop == 1.1)
        #expect(fix.vdop == 1.5)
        // gpsd's epv here is 34.500 (23 m per unit of vdop).
        #expect(abs(fix.verticalAccuracy! - 34.5) < 1e-9)
        #expect(fix.altitude == 59.9)
        #expect(fix.speed != nil)
    }

    @Test("GST gives 1-sigma accuracies, and NMEA 4.1 GSA with a system id is read")
    func gst() throws {
        // ublox-neo-m9n-nmea.log, one whole epoch's position sentences.
        let r = decodeLines([
            "$GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V*0E",
            "$GNGGA,223745.00,3806.62964,N,12237.61382,W,2,12,0.54,83.1,M,-29.5,M,,0000*44",
            "$GNGSA,A,3,29,20,18,16,51,13,44,26,,,,,0.99,0.54,0.83,1*0E",
            "$GNGSA,A,3,82,73,74,67,81,83,68,,,,,,0.99,0.54,0.83,2*08",
            "$GNGST,223745.00,228650,2.5,2.4,126,0.98,1.0,3.1*41",
            "$GNZDA,223745.00,11,07,2020,00,00*7A",
        ])
        let fix = try #require(r.fixes.first)
        #expect(r.decoder.statistics.badChecksum == 0)
        #expect(abs(fix.horizontalAccuracy! - (0.98 * 0.98 + 1.0).squareRoot()) < 1e-12)
        #expect(fix.verticalAccuracy == 3.1)
        #expect(fix.fixMode == .threeD)
        #expect(fix.pdop == 0.99)
        #expect(fix.vdop == 0.83)
        #expect(fix.altitude == 83.1)
        #expect(fix.satellites == 12)
    }

    @Test("ZDA dates a GGA-only stream")
    func zda() throws {
        // firefly-II.log's ZDA with a GGA of the same second (that log's GGAs have bad checksums; this one is valid).
        let r = decodeLines([
            nmea("GPGGA,005947.00,3715.6616,N,12157.6709,W,1,11,0.8,86.0,M,-30.1,M,,"),
            "$GPZDA,005947.00,08,07,2010,+00,00*4E",
        ])
        let fix = try #require(r.fixes.first)
        #expect(fix.time == iso("2010-07-08T00:59:47Z"))
        #expect(fix.altitude == 86.0)
    }

    // MARK: Headings

    @Test("HDT gives true heading stamped with the latest epoch time")
    func hdt() throws {
        // saab-r4.log: HEHDT (the HE talker, which gpsd 3.22 drops) around a ZDA. The first HDT comes before
        // any time is known and is dropped; the second is stamped with the ZDA's epoch.
        let r = decodeLines(["$HEHDT,4.0,T*2B", "$GPZDA,130711,01,06,2011,01,00*49", "$HEHDT,4.0,T*2B"])
        #expect(r.headings == [HeadingReading(time: iso("2011-06-01T13:07:11Z"), degrees: 4)])
        #expect(r.decoder.statistics.headingsWithoutTime == 1)
        #expect(r.decoder.statistics.headings == 1)
        // An empty HDT (hemi.log while acquiring) is a valid sentence with nothing in it.
        let empty = decodeLines(["$GPZDA,130711,01,06,2011,01,00*49", "$GPHDT,,T*1B"])
        #expect(empty.headings.isEmpty)
        #expect(empty.decoder.statistics.sentences == 2)
        #expect(empty.decoder.statistics.headingsWithoutTime == 0)
    }

    @Test("HDG true heading = magnetic + deviation + variation, E positive")
    func hdg() {
        // bundg_zeus_9, variation 1.4 E
        let rmc = "$GPRMC,094737,A,5251.0093,N,00518.8170,E,5.6,230.5,200818,1.4,E,A*1F"
        let next = "$GPRMC,094738,A,5251.0084,N,00518.8149,E,5.8,235.1,200818,1.4,E,A*13"
        let r = decodeLines([
            rmc, next,
            "$SDHDG,229.8,,,1.3,E*36",  // bundg_zeus_9: variation 1.3 E in the sentence -> 231.1
            nmea("SDHDG,359.0,2.0,E,3.0,W"),  // 359 + 2 - 3 = 358
            nmea("SDHDG,359.5,1.0,E,0.0,E"),  // 360.5 -> 0.5
            nmea("SDHDG,10.0,,,,"),  // no variation in the sentence: RMC's 1.4 E -> 11.4
            nmea("SDHDG,10.0,0.5,W,,"),  // deviation W: 10 - 0.5 + 1.4 = 10.9
        ])
        let degrees = r.headings.map { ($0.degrees * 1000).rounded() / 1000 }
        #expect(degrees == [231.1, 358, 0.5, 11.4, 10.9])
        #expect(r.headings.allSatisfy { $0.time == iso("2018-08-20T09:47:38Z") })
        // Without any variation at all, magnetic is taken as true.
        let bare = decodeLines(
            [nmea("GPGGA,094737,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,"), nmea("SDHDG,10.0,,,,")],
            assumedDate: (2018, 8, 20))
        #expect(bare.headings.map(\.degrees) == [10])
    }

    @Test("a negative speed, DOP or error estimate is garbage: absent, never a value the store refuses")
    func negativeMagnitudesAreAbsent() throws {
        // Found by fuzzing: such a fix made the store refuse the recorder's batch (vertical_accuracy_not_negative).
        let r = decodeLines([
            nmea("GPGSA,A,3,01,02,,,,,,,,,,,-1.0,-2.0,-3.0"),
            nmea("GPRMC,094736.00,A,5251.0093,N,00518.8170,E,-5.6,-221.3,200818,1.2,W,A"),
            nmea("GPGGA,094736.00,5251.0093,N,00518.8170,E,1,12,-0.6,-4.0,M,46.0,M,,"),
            nmea("GPGST,094736.00,1.2,-0.8,-0.6,45.0,-1.1,-0.9,-2.0"),
            nmea("GPVTG,221.3,T,222.5,M,-5.6,N,-10.4,K,A"),
        ])
        let fix = try #require(r.fixes.first)
        #expect(fix.speed == nil && fix.hdop == nil && fix.vdop == nil && fix.pdop == nil)
        #expect(fix.horizontalAccuracy == nil && fix.verticalAccuracy == nil)
        #expect(fix.altitude == -4 && abs(fix.course! - 138.7) < 1e-9)  // a course is an angle: normalized
    }
}
