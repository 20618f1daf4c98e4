// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog trip start` / `trip stop` inside a running recording of the real hike: the trip is a session of its own,
/// recorded with the trip settings, and the recording goes on with its own after it.
@Suite(.ownThreads)
struct TripTests {
    static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    @Test func aTripIsItsOwnSessionWithItsOwnSettings() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--source", "replay:\(Self.hike)?speed=1500", "--geocode", "off", "--name", "Day",
                    "--interval", "120s", "--trip-interval", "5s", "--mode", "run",
                ], database: db, folder: dir)
            #expect(waitForStatus(db, timeout: 30) { $0.fixesReceived > 300 } != nil, "\(recorder.stderr)")
            let none = try runGPSLog(["trip"], database: db)
            #expect(none.stdout.contains("No trip is running"), "\(none.stdout)\(none.stderr)")
            let started = try runGPSLog(["trip", "start", "--mode", "walk", "--name", "Summit push"], database: db)
            #expect(started.status == 0 && started.stdout.contains("Started a walk trip"), "\(started.stderr)")
            let again = try runGPSLog(["trip", "start"], database: db)
            #expect(again.status != 0 && again.stderr.contains("a walk trip is already running"), "\(again.stderr)")
            let during = try #require(
                waitForStatus(db, timeout: 30) { $0.sessionName == "Summit push" && $0.entries > 20 },
                "\(recorder.stderr)")
            #expect(during.trip == "walk")
            let shown = try runGPSLog(["trip"], database: db)
            #expect(shown.stdout.contains("Trip 'Summit push' (walk)"), "\(shown.stdout)")
            let stopped = try runGPSLog(["trip", "stop"], database: db)
            #expect(stopped.status == 0 && stopped.stdout.contains("Stopped: Trip 'Summit push'"), "\(stopped.stderr)")
            let noTrip = try runGPSLog(["trip", "stop"], database: db)
            #expect(noTrip.status != 0 && noTrip.stderr.contains("no trip is running"))
            #expect(recorder.wait(timeout: 60) == 0, "\(recorder.stderr)")
            #expect(recorder.stderr.contains("trip started: walk 'Summit push' (gpslog trip start)"))

            let store = try Store(path: db)
            defer { store.close() }
            let sessions = try store.sessions()
            #expect(sessions.map(\.isTrip) == [false, true, false], "\(sessions.map(\.name))")
            guard sessions.count == 3 else { return }
            let trip = sessions[1]
            #expect(trip.name == "Summit push" && trip.mode == .walk && trip.stoppedAutomatically == false)
            #expect(sessions[0].mode == .run && sessions[2].mode == .run)
            #expect(sessions[0].name == "Day")
            // The recording going on after the trip is named apart from its first part, with its start time.
            #expect(sessions[2].name.hasPrefix("Day 20") && sessions[2].name.count == "Day 2024-01-01 10:00".count)
            #expect(sessions[0].end! <= trip.start && trip.end! <= sessions[2].start)
            func spacing(_ s: Session) throws -> [Int64] {
                var times: [Int64] = []
                try store.entries(of: s.id).forEach { if !$0.isHeadingChanged { times.append($0.time.milliseconds) } }
                return zip(times, times.dropFirst()).map { $1 - $0 }
            }
            // The main interval before and after the trip, the trip's inside it.
            #expect(try spacing(sessions[0]).allSatisfy { $0 >= 120_000 })
            #expect(try spacing(sessions[2]).allSatisfy { $0 >= 120_000 })
            let inTrip = try spacing(trip)
            #expect(inTrip.allSatisfy { $0 >= 5000 } && inTrip.contains { $0 < 120_000 })
            let listed = try runGPSLog(["sessions"], database: db)
            #expect(listed.stdout.contains("Summit push"))
        }
    }
}
