// SPDX-License-Identifier: MIT
import GPSLogModel

/// The JSON shape of a session summary (`sessions --json`, `show --json`, and the web view's `/api/sessions`).
/// Times are ISO 8601 UTC.
public struct SessionJSON: Codable, Sendable {
    public var id: String
    public var name: String
    public var start: String
    public var end: String?
    public var recording: Bool
    public var mode: String?
    public var entries: Int
    public var trackPoints: Int
    public var marks: Int
    public var headingChanges: Int
    public var distanceMeters: Double
    public var durationSeconds: Double?
    public var maxSpeedMps: Double?
    public var averageSpeedMps: Double?
    public var boundingBox: BoundingBox?
    /// Fixes the recording refused before sampling (absent for sessions not recorded through the gate).
    public var droppedFixes: DroppedFixes?
    public var markList: [MarkJSON]?

    public struct BoundingBox: Codable, Sendable {
        public var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double
    }

    public struct MarkJSON: Codable, Sendable {
        public var id: String
        public var time: String
        public var latitude: Double
        public var longitude: Double
        public var label: String?
        public var address: String?
    }

    public init(_ s: SessionSummary, marks: [Entry]? = nil) {
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
