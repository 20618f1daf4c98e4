// SPDX-License-Identifier: MIT

/// Trip modes, as Overland names them (`GLTripModes`).
public enum TripMode: String, Sendable, Codable, CaseIterable {
    case walk, run, bicycle, car, taxi, bus, tram, train, metro, gondola, monorail, sleigh, plane, boat, scooter
}

/// One row of the Sessions table: a recording from start to stop.
public struct Session: Sendable, Equatable {
    /// Row key (`Sessions.Key`).
    public var key: Int64
    /// The session's UUID string (`Sessions.ID`), lower-case.
    public var id: String
    /// The name shown in listings and written into exports.
    public var name: String
    /// When the session began.
    public var start: Timestamp
    /// Nil while the session is still recording.
    public var end: Timestamp?
    /// How the user travelled, as Overland names it; nil when not said.
    public var mode: TripMode?
    /// True for a trip started inside a recording (`gpslog trip start`, `Sessions.Trip`).
    public var isTrip: Bool
    /// For an ended trip: whether the automatic pause ended it rather than `trip stop` (Overland's
    /// `stopped_automatically`).
    public var stoppedAutomatically: Bool?

    /// Creates a session from its parts.
    public init(
        key: Int64, id: String, name: String, start: Timestamp, end: Timestamp?, mode: TripMode?, isTrip: Bool = false,
        stoppedAutomatically: Bool? = nil
    ) {
        self.key = key
        self.id = id
        self.name = name
        self.start = start
        self.end = end
        self.mode = mode
        self.isTrip = isTrip
        self.stoppedAutomatically = stoppedAutomatically
    }

    /// The first 8 characters of the id, as listings show it.
    public var shortID: String { String(id.prefix(8)) }
}

/// Figures about a session, computed by the store in SQL.
public struct SessionSummary: Sendable, Equatable {
    /// The session summed up.
    public var session: Session
    /// All rows: locations, marks and heading changes.
    public var entryCount: Int
    /// Location rows (not marks, not heading changes): the track.
    public var trackPointCount: Int
    /// Marks: the points the user marked.
    public var markCount: Int
    /// Heading-change rows.
    public var headingChangeCount: Int
    /// Sum of instance counts over the track: how many accepted fixes the track stands for.
    public var fixCount: Int
    /// Great-circle length of the track in metres.
    public var distance: Double
    /// Time of the first and last track point.
    public var firstTime: Timestamp?
    /// Time of the last track point.
    public var lastTime: Timestamp?
    /// Bounding box of the track and marks.
    public var minLatitude: Double?
    /// Largest latitude in the box, degrees north.
    public var maxLatitude: Double?
    /// Smallest longitude in the box, degrees east.
    public var minLongitude: Double?
    /// Largest longitude in the box, degrees east.
    public var maxLongitude: Double?
    /// Highest recorded speed in m/s.
    public var maxSpeed: Double?
    /// Fixes the recording refused before sampling; nil when the session was not recorded through the gate.
    public var droppedFixes: DroppedFixes?

    /// An empty summary of `session`: counts 0, figures nil, for the store to fill in.
    public init(session: Session) {
        self.session = session
        entryCount = 0
        trackPointCount = 0
        markCount = 0
        headingChangeCount = 0
        fixCount = 0
        distance = 0
    }

    /// Milliseconds from the session start to its end, or to the last entry while recording.
    public var durationMilliseconds: Int64? {
        guard let end = session.end ?? lastTime else { return nil }
        return end.milliseconds - session.start.milliseconds
    }

    /// Distance over the time between the first and last track point, in m/s.
    public var averageSpeed: Double? {
        guard let a = firstTime, let b = lastTime, b > a else { return nil }
        return distance / (Double(b.milliseconds - a.milliseconds) / 1000)
    }
}
