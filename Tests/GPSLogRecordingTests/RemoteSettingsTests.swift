// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogRecording

/// How a server's `set` values read: Overland's spellings ("m" is minutes after a duration, metres after a
/// distance), the refusals, and the keys with no meaning here.
@Suite(.ownThreads)
struct RemoteSettingsTests {
    func read(_ section: String, _ name: String, _ value: String, allow: Bool = false) -> RemoteChange.Reading {
        RemoteChange.read(ServerSetting(section: section, name: name, value: value), allowRemoteOff: allow)
    }

    @Test func overlandsValuesReadAsTheOptions() {
        #expect(read("top", "send_interval", "5m") == .change(.sendInterval(.seconds(300))))
        #expect(read("main", "min_distance", "50m") == .change(.minDistance(50)))
        #expect(read("main", "min_distance", "off") == .change(.minDistance(nil)))
        #expect(read("main", "min_time", "1s") == .change(.minTime(nil)), "Overland's 1 s is no filter")
        #expect(read("main", "min_time", "1m") == .change(.minTime(60_000)))
        #expect(read("main", "desired_accuracy", "1km") == .change(.maxAccuracy(1000)))
        #expect(read("main", "desired_accuracy", "best") == .change(.maxAccuracy(nil)))
        #expect(read("main", "pause_automatically", "true") == .change(.pause(600_000)))
        #expect(read("main", "resume_with_geofence", "2km") == .change(.resumeRadius(2000)))
        #expect(read("main", "tracking_mode", "significant") == .change(.monitoring(.significant)))
        #expect(read("main", "tracking_mode", "both") == .change(.monitoring(nil)))
        #expect(read("main", "batch_size", "500") == .change(.batchSize(500)))
        #expect(read("main", "logging_mode", "latest") == .change(.loggingMode(.latest)))
        #expect(read("main", "visit_tracking", "true") == .change(.visits(true)))
    }

    @Test func offIsRefusedUnlessAllowedAndUnknownsAreSkipped() {
        guard case .refused(let why) = read("top", "send_interval", "off") else {
            Issue.record("send_interval off was not refused")
            return
        }
        #expect(why.contains("--allow-remote-off"))
        #expect(read("top", "send_interval", "off", allow: true) == .change(.sendInterval(nil)))
        if case .refused = read("main", "tracking_mode", "off") {} else { Issue.record("tracking_mode off accepted") }
        #expect(read("main", "tracking_mode", "off", allow: true) == .change(.monitoring(.manual)))
        if case .notApplicable = read("main", "activity_type", "fitness") {} else { Issue.record("activity_type") }
        #expect(read("trip", "min_distance", "10m") == .change(.tripMinDistance(10)))
        #expect(read("top", "trip_mode", "car") == .change(.tripMode(.car)))
        if case .notApplicable = read("trip", "batch_size", "50") {} else { Issue.record("trip.batch_size") }
        if case .invalid = read("main", "min_distance", "far") {} else { Issue.record("a bad value was taken") }
        if case .invalid = read("main", "colour", "red") {} else { Issue.record("an unknown key was taken") }
    }
}
