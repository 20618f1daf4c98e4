// SPDX-License-Identifier: MIT
import GPSLogModel
import Testing

@Suite struct FixTests {
    /// Receivers write due north as 360.0 (the generator of the benchmark log did too, and a whole recording
    /// stopped on the store's course CHECK): fixes and headings keep angles in [0, 360).
    @Test(arguments: [(360.0, 0.0), (-0.0, 0.0), (720.5, 0.5), (-90.0, 270.0), (359.99, 359.99), (-1e-20, 0.0)])
    func coursesAndHeadingsAreNormalised(raw: Double, expected: Double) {
        let fix = Fix(time: Timestamp(milliseconds: 0), latitude: 52, longitude: 5, course: raw)
        #expect(fix.course == expected)
        #expect(fix.course!.sign == .plus)
        #expect(HeadingReading(time: Timestamp(milliseconds: 0), degrees: raw).degrees == expected)
    }
}
