// SPDX-License-Identifier: MIT
import GPSLogModel

/// The JSON shape of a session summary (`sessions --json`, `show --json`, and the web view's `/api/sessions`).
/// Times are ISO 8601 UTC.
public struct SessionJSON: Codable, Sendable {
    /// The session's id, a lower-case UUID.
    public var id: String
    /// The name shown in listings.
    public var name: String
    /// When the session began.
    public var start: String
    /// When it ended; absent while recording.
    public var end: String?
    /// True while the session is still recording (it has no end).
    public var recording: Bool
    /// The trip mode (`walk`, `car`, ...); absent when none.
    public var mode: String?
    /// All rows: locations, marks and heading changes.
    public var entries: Int
    /// Location rows: the track.
    public var trackPoints: Int
    /// How many points the user marked.
    public var marks: Int
    /// How many rows record a heading change.
    public var headingChanges: Int
    /// Great-circle length of the track in metres, to 0.1 m.
    public var distanceMeters: Double
    /// From the start to the end (or to the last track point while recording); absent when neither is known.
    public var durationSeconds: Double?
    /// Highest recorded speed, metres per second.
    public var maxSpeedMps: Double?
    /// Distance over the time from the first to the last track point, metres per second to 1 mm/s.
    public var averageSpeedMps: Double?
    /// Bounding box of the track and marks; absent for an empty session.
    public var boundingBox: BoundingBox?
    /// Fixes the recording refused before sampling (absent for sessions not recorded through the gate).
    public var droppedFixes: DroppedFixes?
    /// The marks, when asked for (`show --json`); absent otherwise.
    public var markList: [MarkJSON]?

    /// Degrees, WGS 84.
    public struct BoundingBox: Codable, Sendable {
        public var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double
    }

    /// One mark of `markList`.
    public struct MarkJSON: Codable, Sendable {
        /// The entry's id.
        public var id: String
        /// When the mark was made.
        public var time: String
        /// Degrees north, WGS 84.
        public var latitude: Double
        /// Degrees east, WGS 84.
        public var longitude: Double
        /// The mark's label, when it has one.
        public var label: String?
        /// Its reverse-geocoded address, when known.
        public var address: String?
    }

    /// The JSON of a summary, with `marks` listed when given.
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
