// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSources

extension FuzzTarget {
    /// An NMEA log, read as `record --source nmea:FILE` and `import` read it: through `NMEAFileReader` (read(2),
    /// line splitting) into `NMEADecoder`, once with no date known and once with an assumed date (GGA-only logs).
    /// Every fix and heading is in range and inside the time window, and the counters match what was delivered.
    static func nmea(_ input: UnsafeRawBufferPointer) {
        let path = FuzzScratch.write(input, as: "input.nmea")
        checkNMEA(path: path)
    }

    /// The NMEA checks on a file already written (shared with `detect`).
    static func checkNMEA(path: String) {
        for assumedDate in [nil, (year: 2024, month: 2, day: 29)] {
            var delivered = (fixes: 0, headings: 0)
            let statistics: NMEAStatistics
            do {
                statistics = try NMEAFileReader(path: path, assumedDate: assumedDate).read { event in
                    switch event {
                    case .fix(let fix):
                        delivered.fixes += 1
                        FuzzInvariant.check(fix.course.map { $0 >= 0 && $0 < 360 } ?? true, "course \(fix.course!)")
                        FuzzInvariant.accepted(
                            Entry(id: FuzzInvariant.placeholderID, fix: fix), from: "NMEADecoder", plausibleTime: true,
                            plausiblePosition: false)
                    case .heading(let heading):
                        delivered.headings += 1
                        FuzzInvariant.check(
                            heading.degrees >= 0 && heading.degrees < 360, "heading \(heading.degrees) out of range")
                        FuzzInvariant.check(
                            TimeWindow.current.contains(heading.time), "heading at \(heading.time), outside the window")
                    case .resumed:
                        FuzzInvariant.check(false, "a file's decoder said its receiver came back")
                    }
                }
            } catch {
                fatalError("NMEAFileReader failed on a readable file: \(error)")
            }
            FuzzInvariant.check(
                statistics.fixes == delivered.fixes && statistics.headings == delivered.headings,
                "the counters say \(statistics.fixes) fixes and \(statistics.headings) headings, \(delivered) came")
        }
    }
}
