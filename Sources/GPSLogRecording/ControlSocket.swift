// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGeocoding
import GPSLogModel

/// Where a recorder listens for `mark`, `status` and `stop`: `$XDG_RUNTIME_DIR/gpslog/<hash>.sock` (per user,
/// cleaned at logout), else beside the database as `<database>.sock`. Both ends compute the same path from the
/// database's real path (`RecordingLock.realPath(of:)`), so a symlink to the database reaches the same recorder.
public enum ControlSocket {
    /// Unix socket paths are limited to 107 bytes.
    static let maxPathLength = 107

    /// The socket's path for the database at `db`, as above (`/tmp/gpslog-UID/<hash>.sock` when both are too long).
    public static func path(forDatabase db: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        let absolute = RecordingLock.realPath(of: db)
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

/// A request on the control socket: one JSON object per line, `{"command":"mark","label":"Trailhead"}`.
public enum ControlRequest: Sendable, Equatable, Codable {
    /// Mark the freshest fix, with an optional label; `poi`: the label names a point of interest.
    case mark(label: String?, poi: Bool = false)
    /// What the tracker screen shows.
    case status
    /// Finish the session and exit.
    case stop
    /// Send what waits now (with `record --send`).
    case sendNow
    /// Switch to an OwnTracks monitoring mode by name (`interval`: back to GPS Log's interval sampling); nil: only
    /// say which mode is on.
    case monitoring(mode: String?)
    /// Start a trip (Overland's Start): a session of its own, with its mode (nil: the recording's) and name.
    case tripStart(mode: String?, name: String?)
    /// End the running trip.
    case tripStop
    /// Set OwnTracks' tag for the entries from now on (empty: clear it); nil: only say which tag is set.
    case tag(String?)

    /// The command words on the wire.
    public static let commands = [
        "mark", "status", "stop", "send-now", "monitoring", "trip-start", "trip-stop", "tag",
    ]

    private enum Keys: String, CodingKey { case command, label, mode, name, poi, tag }

    /// Reads `command` and the fields it takes; an unknown command is an error that lists the known ones.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let command = try c.decode(String.self, forKey: .command)
        switch command {
        case "mark":
            self = .mark(
                label: try c.decodeIfPresent(String.self, forKey: .label),
                poi: try c.decodeIfPresent(Bool.self, forKey: .poi) ?? false)
        case "tag": self = .tag(try c.decodeIfPresent(String.self, forKey: .tag))
        case "status": self = .status
        case "stop": self = .stop
        case "send-now": self = .sendNow
        case "monitoring": self = .monitoring(mode: try c.decodeIfPresent(String.self, forKey: .mode))
        case "trip-start":
            self = .tripStart(
                mode: try c.decodeIfPresent(String.self, forKey: .mode),
                name: try c.decodeIfPresent(String.self, forKey: .name))
        case "trip-stop": self = .tripStop
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .command, in: c,
                debugDescription: "unknown command: use \(Self.commands.joined(separator: ", "))")
        }
    }

    /// Writes `command` and the fields that are set, as `init(from:)` reads them (`poi` only when true).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .mark(let label, let poi):
            try c.encode("mark", forKey: .command)
            try c.encodeIfPresent(label, forKey: .label)
            if poi { try c.encode(true, forKey: .poi) }
        case .tag(let tag):
            try c.encode("tag", forKey: .command)
            try c.encodeIfPresent(tag, forKey: .tag)
        case .status: try c.encode("status", forKey: .command)
        case .stop: try c.encode("stop", forKey: .command)
        case .sendNow: try c.encode("send-now", forKey: .command)
        case .monitoring(let mode):
            try c.encode("monitoring", forKey: .command)
            try c.encodeIfPresent(mode, forKey: .mode)
        case .tripStart(let mode, let name):
            try c.encode("trip-start", forKey: .command)
            try c.encodeIfPresent(mode, forKey: .mode)
            try c.encodeIfPresent(name, forKey: .name)
        case .tripStop: try c.encode("trip-stop", forKey: .command)
        }
    }
}

extension ControlRequest {
    /// The longest request line the recorder waits for; a client that sends more without a newline is dropped.
    public static let maxLineLength = 65536

    /// What the bytes a client has sent so far amount to.
    public enum Reading: Sendable, Equatable {
        /// No newline yet: wait for more.
        case incomplete
        /// No newline within `maxLineLength` bytes: drop the connection without an answer.
        case tooLong
        /// The first line is a request.
        case request(ControlRequest)
        /// The first line is not a request; the answer's error says what one looks like.
        case refused(String)
    }

    /// Reads the first line of what a client sent, as the recorder's control server does.
    public static func read(_ bytes: some Collection<UInt8>) -> Reading {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            return bytes.count > maxLineLength ? .tooLong : .incomplete
        }
        guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(bytes[..<newline])) else {
            return .refused(
                "bad request: expected one JSON object per line with a command (\(commands.joined(separator: ", ")))")
        }
        return .request(request)
    }
}

/// The answer: one JSON object per line.
public struct ControlResponse: Codable, Sendable {
    /// Whether the request was done; false: `error` says why.
    public var ok: Bool
    /// Why the request was refused or failed, for people; nil when `ok`.
    public var error: String?
    /// The mark made, in the answer to `mark`.
    public var mark: MarkInfo?
    /// The recorder's status after the request, in the answers to the other commands.
    public var status: RecorderStatus?

    /// Creates an answer from its parts.
    public init(ok: Bool, error: String? = nil, mark: MarkInfo? = nil, status: RecorderStatus? = nil) {
        self.ok = ok
        self.error = error
        self.mark = mark
        self.status = status
    }
}

/// A mark as `gpslog mark` prints it.
public struct MarkInfo: Codable, Sendable, Equatable {
    /// The marked entry's id, a UUID string.
    public var entryID: String
    /// The id of the session the mark is in, a lower-case UUID.
    public var sessionID: String
    /// When the marked fix was taken, ISO 8601 in UTC.
    public var time: String
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double
    /// Metres above mean sea level; nil when the fix had none.
    public var altitude: Double?
    /// Estimated horizontal error in metres; nil when the receiver did not say.
    public var horizontalAccuracy: Double?
    /// The mark's label; nil: none.
    public var label: String?

    /// Creates a mark from its parts.
    public init(
        entryID: String, sessionID: String, time: String, latitude: Double, longitude: Double,
        altitude: Double? = nil, horizontalAccuracy: Double? = nil, label: String?
    ) {
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
    /// The current session's id, a lower-case UUID; nil before its first fix.
    public var sessionID: String?
    /// The current session's name; before its first fix, what it will be named after.
    public var sessionName: String
    /// The source, as it names itself: `gpsd://HOST:PORT`, `nmea:PATH`, `replay:PATH?speed=N`.
    public var source: String
    /// The recorder's process id.
    public var pid: Int32
    /// Seconds since the last fix arrived (wall clock), nil before the first.
    public var lastFixAgeSeconds: Double?
    /// When the last fix was taken (its own time, ISO 8601 in UTC); nil before the first.
    public var lastFixTime: String?
    /// The last fix's degrees north, WGS 84; nil before the first.
    public var latitude: Double?
    /// The last fix's degrees east, WGS 84; nil before the first.
    public var longitude: Double?
    /// The last fix's metres above mean sea level; nil when it had none.
    public var altitude: Double?
    /// The last fix's estimated horizontal error in metres; nil when the receiver did not say.
    public var horizontalAccuracy: Double?
    /// The last fix's speed over ground in metres per second; nil when it had none.
    public var speed: Double?
    /// Rows of the current session, committed or waiting for their commit.
    public var entries: Int
    /// Marks stored in the current session.
    public var marks: Int
    /// Fixes the source delivered in this run, before sampling.
    public var fixesReceived: Int
    /// Sentences or messages the source could not use (bad checksums, garbage, malformed JSON).
    public var badSentences: Int
    /// Seconds from the current session's start to its newest stored row; nil before its first fix.
    public var durationSeconds: Double?
    /// Length of the current session's track in metres, to a tenth.
    public var distanceMeters: Double
    /// Whether the source is connected to its receiver (a gpsd socket, an open device).
    public var connected: Bool
    /// The reverse geocoder running inside the recording, when there is one.
    public var addresses: GeocodeReport?
    /// Live sending (`record --send`), when on.
    public var sending: SendingStatus?
    /// Fixes refused before sampling in this run, by reason (no position, time, speed).
    public var droppedFixes: DroppedFixes?
    /// Sessions this run has recorded (more than one after `--split`).
    public var sessions: Int?
    /// The source's connection: connected or waiting since when, reconnects, last sentence (see `SourceState`).
    public var sourceState: SourceState?
    /// OwnTracks' monitoring mode (`quiet`, `manual`, `significant`, `move`); nil: GPS Log's interval sampling.
    public var monitoring: String?
    /// Since when (fix time) the automatic pause holds; nil when not paused.
    public var pausedSince: String?
    /// Since when (fix time) the receiver has been at the visit under way; nil when none.
    public var visitSince: String?
    /// The mode of the trip running (`gpslog trip start`); nil when none. The session, its duration and distance
    /// are then the trip's.
    public var trip: String?
    /// The regions the receiver is in (`gpslog region`); nil when none are defined.
    public var regions: [String]?
    /// OwnTracks' tag kept with every entry (`gpslog tag`); nil: none.
    public var tag: String?
    /// The sampling rules in force (a server's `set` changes them while recording).
    public var sampling: SamplingStatus?
}
