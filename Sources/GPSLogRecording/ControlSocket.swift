// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Where a recorder listens for `mark`, `status` and `stop`: `$XDG_RUNTIME_DIR/gpslog/<hash>.sock` (per user,
/// cleaned at logout), else beside the database as `<database>.sock`. Both ends compute the same path from the
/// database path.
public enum ControlSocket {
    /// Unix socket paths are limited to 107 bytes.
    static let maxPathLength = 107

    public static func path(forDatabase db: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let absolute = URL(fileURLWithPath: db).standardizedFileURL.path
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let candidate = "\(runtime)/gpslog/\(hash(absolute)).sock"
            if candidate.utf8.count <= maxPathLength { return candidate }
        }
        let beside = absolute + ".sock"
        if beside.utf8.count <= maxPathLength { return beside }
        return "/tmp/gpslog-\(getuid())/\(hash(absolute)).sock"
    }

    /// FNV-1a of the path, as 16 hex digits.
    static func hash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h &*= 0x100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// A request on the control socket: one JSON object per line.
public struct ControlRequest: Codable, Sendable {
    public var command: String
    public var label: String?
    public init(command: String, label: String? = nil) {
        self.command = command
        self.label = label
    }
}

/// The answer: one JSON object per line.
public struct ControlResponse: Codable, Sendable {
    public var ok: Bool
    public var error: String?
    public var mark: MarkInfo?
    public var status: RecorderStatus?

    public init(ok: Bool, error: String? = nil, mark: MarkInfo? = nil, status: RecorderStatus? = nil) {
        self.ok = ok
        self.error = error
        self.mark = mark
        self.status = status
    }
}

/// A mark as `gpslog mark` prints it.
public struct MarkInfo: Codable, Sendable, Equatable {
    public var entryID: String
    public var sessionID: String
    public var time: String
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var label: String?

    public init(entryID: String, sessionID: String, time: String, latitude: Double, longitude: Double,
                altitude: Double? = nil, horizontalAccuracy: Double? = nil, label: String?) {
        self.entryID = entryID
        self.sessionID = sessionID
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.label = label
    }
}

/// What Overland's tracker screen shows, for `gpslog status`.
public struct RecorderStatus: Codable, Sendable, Equatable {
    public var sessionID: String?
    public var sessionName: String
    public var source: String
    public var pid: Int32
    /// Seconds since the last fix arrived (wall clock), nil before the first.
    public var lastFixAgeSeconds: Double?
    public var lastFixTime: String?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var speed: Double?
    public var entries: Int
    public var marks: Int
    public var fixesReceived: Int
    public var badSentences: Int
    public var durationSeconds: Double?
    public var distanceMeters: Double
    public var connected: Bool
    /// The reverse geocoder running inside the recording, when there is one.
    public var addresses: GeocodeReport?
    /// Live sending (`record --send`), when on.
    public var sending: SendingStatus?
}

/// Live sending as Overland's tracker screen shows it: what waits, and when the last batch went.
public struct SendingStatus: Codable, Sendable, Equatable {
    /// The destination, without credentials.
    public var destination: String
    /// Track points not yet confirmed by the server (the queue is the database).
    public var queued: Int
    /// Track points the server confirmed for this session.
    public var sent: Int
    /// When the server confirmed the last batch (ISO 8601).
    public var lastSentAt: String?
    /// Why the last attempt failed, if it did (never holds the token).
    public var lastError: String?

    public init(destination: String, queued: Int = 0, sent: Int = 0, lastSentAt: String? = nil, lastError: String? = nil) {
        self.destination = destination
        self.queued = queued
        self.sent = sent
        self.lastSentAt = lastSentAt
        self.lastError = lastError
    }
}

