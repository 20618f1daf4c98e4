// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogTestSupport
import Testing

/// TCX as Garmin's devices and Training Center write it: activities and courses as sessions, tracks as segments,
/// what gpslog has a column for kept, the rest dropped with a count.
@Suite(.ownThreads)
struct TCXImportTests {
    static let seeds = TestPaths.packageRoot + "/Tests/Fixtures/fuzz/tcx/seeds"

    /// Two activities: two sessions numbered after the file, their sports as modes; the second Track a segment;
    /// TPX speed and the altitude kept; a Trackpoint without a Position skipped; heart rate, cadence and power
    /// dropped, each said once.
    @Test func activitiesBecomeSessionsAndTracksSegments() throws {
        var notes: [String] = []
        var options = TrackImportOptions()
        options.notes = { notes.append($0) }
        let path = Self.seeds + "/activity.tcx"
        #expect(try ImportFormat.detect(path: path) == .tcx)
        let sessions = try KMLImportTests.imported(path, options: options)
        #expect(sessions.map(\.session.name) == ["activity (1)", "activity (2)"])
        #expect(sessions.map(\.session.mode) == [.bicycle, .run])
        let ride = sessions[0].entries
        #expect(ride.map(\.latitude) == [52.0907, 52.0915, 52.0950])
        #expect(ride.map(\.startsSegment) == [false, false, true])
        #expect(ride.map(\.altitude) == [4.5, 5, nil])
        #expect(ride.map(\.speed) == [5.5, nil, nil])
        #expect(
            ride.map(\.time) == ["09:00:00", "09:00:10", "09:05:00"].map { Timestamp(iso8601: "2024-03-01T\($0)Z") })
        #expect(
            notes == [
                "skipped 1 Trackpoint(s) without a Position",
                "dropped 2 heart rate, 2 cadence, 1 power values (gpslog has no column for them)",
            ])
        let merged = try KMLImportTests.imported(path, options: TrackImportOptions(merge: true))
        #expect(merged.count == 1 && merged[0].entries.count == 4)
        #expect(merged[0].entries.map(\.startsSegment) == [false, false, true, true])
    }

    /// A course: a session named after it, its CoursePoints its marks (name as label, notes as address).
    @Test func courseWithCoursePoints() throws {
        let sessions = try KMLImportTests.imported(Self.seeds + "/course.tcx")
        #expect(sessions.map(\.session.name) == ["Lake loop"])
        let entries = sessions[0].entries
        #expect(entries.filter { !$0.marked }.map(\.longitude) == [7.75, 7.76])
        let mark = try #require(entries.first { $0.marked })
        #expect(mark.label == "Bridge" && mark.address == "Cross here")
        #expect(mark.time == Timestamp(iso8601: "2024-04-01T10:02:00Z"))
    }

    /// The dry run counts what the import would make, with no database.
    @Test func dryRunCountsTheSessions() throws {
        let planned = try FileImporter().dryRun(Self.seeds + "/activity.tcx")
        #expect(planned.map(\.name) == ["activity (1)", "activity (2)"])
        #expect(planned.map(\.points) == [3, 1])
    }
}
