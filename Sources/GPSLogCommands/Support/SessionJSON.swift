// SPDX-License-Identifier: MIT
import GPSLogModel

/// The JSON shape of a session summary (`sessions --json`, `show --json`). Times are ISO 8601 UTC.
struct SessionJSON: Encodable {
    var id: String
    var name: String
    var start: String
    var end: String?
    var recording: Bool
    var mode: String?
    var entries: Int
    var trackPoints: Int
    var marks: Int
    var headingChanges: Int
    var distanceMeters: Double
    var durationSeconds: Double?
    var maxSpeedMps: Double?
    var averageSpeedMps: Double?
    var boundingBox: BoundingBox?
    /// Fixes the recording refused before sampling (absent for sessions not recorded through the gate).
    var droppedFixes: DroppedFixes?
    var markList: [MarkJSON]?

    struct BoundingBox: Encodable {
        var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double
    }

    struct MarkJSON: Encodable {
        var id: String
        var time: String
        var latitude: Double
        var longitude: Double
        var label: String?
        var address: String?
    }

    init(_ s: SessionSummary, marks: [Entry]? = nil) {
        id = s.session.id
        name = s.session.name
        start = s.session.start.iso8601()
        end = s.session.end?.iso8601()
        recording = s.session.end == nil
        mode = s.session.mode?.rawValue
        entries = s.entryCount
        trackPoints = s.trackPointCount
        self.marks = s.markCount
        headingChanges = s.headingChangeCount
        distanceMeters = (s.distance * 10).rounded() / 10
        durationSeconds = s.durationMilliseconds.map { Double($0) / 1000 }
        maxSpeedMps = s.maxSpeed
        averageSpeedMps = s.averageSpeed.map { ($0 * 1000).rounded() / 1000 }
        if let a = s.minLatitude, let b = s.minLongitude, let c = s.maxLatitude, let d = s.maxLongitude {
            boundingBox = BoundingBox(minLatitude: a, minLongitude: b, maxLatitude: c, maxLongitude: d)
        }
        droppedFixes = s.droppedFixes
        markList = marks?.map {
            MarkJSON(
                id: $0.id, time: $0.time.iso8601(), latitude: $0.latitude, longitude: $0.longitude, label: $0.label,
                address: $0.address)
        }
    }
}
