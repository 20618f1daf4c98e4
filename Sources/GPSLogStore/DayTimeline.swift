// SPDX-License-Identifier: MIT
import GPSLogModel

/// A day's timeline (`gpslog timeline`, the web view's day page): the places stayed at and the moves between
/// them, in time order, over every session of the day.
///
/// Stored visits that touch or overlap in time at the same place are shown as one (merged when reading, the rows
/// stay as they are): the stay detector ends a visit at the first fix 50 m from where it began, so a slow walk
/// gives a row of visits each starting where the last one ended (`07:02:33Z to 07:06:25Z`, then `07:06:25Z to
/// ...`). A visit's place is a circle of its accuracy, at least `samePlaceRadius`; two visits are at the same
/// place when their circles meet.
public struct DayTimeline: Sendable, Encodable {
    /// A place stayed at: one stored visit, or several merged.
    public struct Place: Sendable, Encodable {
        /// The first stored visit's key: what `gpslog visit rename` and `visit delete` take.
        public var id: Int64
        /// The keys of the stored visits shown as this one, by arrival.
        public var visits: [Int64]
        /// The name the user gave it (the first piece's that has one).
        public var name: String?
        /// The reverse-geocoded address (the first piece's that has one).
        public var address: String?
        /// Degrees north, WGS 84: the mean of the pieces weighted by how long each lasted.
        public var latitude: Double
        /// Degrees east, WGS 84, weighted likewise.
        public var longitude: Double
        /// Metres: the farthest a piece's circle reaches from the mean.
        public var horizontalAccuracy: Double
        /// The first piece's arrival.
        public var arrival: Timestamp
        /// The last piece's departure; nil while still there.
        public var departure: Timestamp?
        /// With no departure: when the recording of the piece still there ended (its session's end), so that a
        /// stay the recorder never saw end is not shown as going on for ever; nil while that session records.
        public var recordingEnded: Timestamp?
        /// The session of the first piece.
        public var session: String

        /// Where a place with no departure is shown to end: `recordingEnded`, once that lies more than
        /// `liveWindow` milliseconds before `now` (a device `serve` receives from ends its session at its last
        /// location, batch after batch, so a recent end may still move on); nil while still there.
        public func shownEnd(now: Timestamp, liveWindow: Int64 = 5 * 60 * 1000) -> Timestamp? {
            guard departure == nil, let recordingEnded, now.milliseconds - recordingEnded.milliseconds > liveWindow
            else { return nil }
            return recordingEnded
        }

        /// How a place with no departure ends in words: `time` of `shownEnd` and ", when the recording ended",
        /// or "the recording's end" when the recording's last point is its arrival (the sampler keeps one point
        /// for a stay's fixes at the same place); "still there" while the recording may go on.
        public func endWords(now: Timestamp, time: (Timestamp) -> String) -> String {
            guard let end = shownEnd(now: now) else { return "still there" }
            return end > arrival
                ? "\(time(end)), when the recording ended (no departure seen)"
                : "the recording's end (no departure seen)"
        }

        enum CodingKeys: String, CodingKey {
            case kind, id, visits, name, address, latitude, longitude, horizontalAccuracy, arrival, departure
            case recordingEnded, durationSeconds, session
        }

        /// As `gpslog timeline --json` prints it: times in ISO 8601, UTC.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("visit", forKey: .kind)
            try c.encode(id, forKey: .id)
            try c.encode(visits, forKey: .visits)
            try c.encodeIfPresent(name, forKey: .name)
            try c.encodeIfPresent(address, forKey: .address)
            try c.encode(latitude, forKey: .latitude)
            try c.encode(longitude, forKey: .longitude)
            try c.encode(horizontalAccuracy, forKey: .horizontalAccuracy)
            try c.encode(arrival.iso8601(), forKey: .arrival)
            try c.encodeIfPresent(departure?.iso8601(), forKey: .departure)
            try c.encodeIfPresent(recordingEnded?.iso8601(), forKey: .recordingEnded)
            try c.encodeIfPresent(
                departure.map { Double($0.milliseconds - arrival.milliseconds) / 1000 }, forKey: .durationSeconds)
            try c.encode(session, forKey: .session)
        }
    }

    /// The way from one place to the next (or into the first, out of the last): the track points between them.
    public struct Move: Sendable, Encodable {
        /// The move's first track point.
        public var start: Timestamp
        /// The move's last track point.
        public var end: Timestamp
        /// Metres along the track points, each session's own.
        public var distanceMetres: Double
        /// The trip mode of the session that went the farthest of it; nil when it has none.
        public var mode: TripMode?
        /// How many track points it has.
        public var points: Int

        enum CodingKeys: String, CodingKey {
            case kind, start, end, durationSeconds, distanceMetres, mode, points
        }

        /// As `gpslog timeline --json` prints it: times in ISO 8601, UTC.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("move", forKey: .kind)
            try c.encode(start.iso8601(), forKey: .start)
            try c.encode(end.iso8601(), forKey: .end)
            try c.encode(Double(end.milliseconds - start.milliseconds) / 1000, forKey: .durationSeconds)
            try c.encode((distanceMetres * 10).rounded() / 10, forKey: .distanceMetres)
            try c.encodeIfPresent(mode, forKey: .mode)
            try c.encode(points, forKey: .points)
        }
    }

    /// A place or a move.
    public enum Item: Sendable, Encodable {
        case visit(Place)
        case move(Move)

        /// As `gpslog timeline --json` prints it: times in ISO 8601, UTC.
        public func encode(to encoder: Encoder) throws {
            switch self {
            case .visit(let p): try p.encode(to: encoder)
            case .move(let m): try m.encode(to: encoder)
            }
        }
    }

    /// One session's track that day, thinned for a map: runs of [latitude, longitude], broken at segment starts.
    public struct Track: Sendable, Encodable {
        /// The session's id.
        public var session: String
        /// Runs of [latitude, longitude].
        public var lines: [[[Double]]]
    }

    /// The span shown: from midnight to midnight of the day asked, in the time zone asked.
    public var from: Timestamp
    /// The next midnight (excluded).
    public var to: Timestamp
    /// Places and moves in time order.
    public var items: [Item]
    /// The day's tracks, when asked for (the day page's map).
    public var tracks: [Track]?

    /// True when the day has no visit and no track point.
    public var isEmpty: Bool { items.isEmpty && (tracks ?? []).allSatisfy { $0.lines.isEmpty } }

    enum CodingKeys: String, CodingKey { case from, to, items, tracks }

    /// As `gpslog timeline --json` prints it: times in ISO 8601, UTC.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(from.iso8601(), forKey: .from)
        try c.encode(to.iso8601(), forKey: .to)
        try c.encode(items, forKey: .items)
        try c.encodeIfPresent(tracks, forKey: .tracks)
    }

    /// The smallest radius of a visit's place: the stay detector's (`StayWatcher.stopRadius`, at least 50 m).
    public static let samePlaceRadius = 50.0

    /// Whether `b` (arriving at or after `a`) touches or overlaps `a` in time and lies at the same place.
    static func continues(_ a: Visit, departure: Timestamp?, with b: Visit) -> Bool {
        if let departure, b.arrival > departure { return false }
        let apart = Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
        return apart <= max(a.horizontalAccuracy, samePlaceRadius) + max(b.horizontalAccuracy, samePlaceRadius)
    }

    /// Visits (with the session of each) grouped into places: each run of visits, by arrival, that touch or overlap
    /// the one before at the same place is one place. `sessionEnds` gives the end of each session that has ended
    /// (`Place.recordingEnded`).
    public static func places(
        _ visits: [(visit: Visit, session: String)], sessionEnds: [String: Timestamp] = [:]
    ) -> [Place] {
        let sorted = visits.sorted {
            ($0.visit.arrival, $0.visit.key ?? 0) < ($1.visit.arrival, $1.visit.key ?? 0)
        }
        var groups: [[(visit: Visit, session: String)]] = []
        var departure: Timestamp?  // the group's latest departure; nil while one piece is still there
        for v in sorted {
            if let last = groups.last?.last, continues(last.visit, departure: departure, with: v.visit) {
                groups[groups.count - 1].append(v)
                if let d = departure { departure = v.visit.departure.map { max($0, d) } }
            } else {
                groups.append([v])
                departure = v.visit.departure
            }
        }
        return groups.map { place($0, sessionEnds: sessionEnds) }
    }

    /// One place from a run of visits.
    static func place(_ pieces: [(visit: Visit, session: String)], sessionEnds: [String: Timestamp] = [:]) -> Place {
        let first = pieces[0].visit
        let openSessions = pieces.filter { $0.visit.departure == nil }.map(\.session)
        let departure = openSessions.isEmpty ? pieces.compactMap(\.visit.departure).max() : nil
        // Ended only when every session with a piece still there has ended: the latest of those ends.
        let ends = openSessions.map { sessionEnds[$0] }
        let recordingEnded = ends.isEmpty || ends.contains(nil) ? nil : ends.compactMap { $0 }.max()
        // Each piece weighs what it lasted (a still open one: a second), so a short passing visit moves it little.
        var (weights, lat, lon) = (0.0, 0.0, 0.0)
        for p in pieces {
            let w = max(1, Double((p.visit.departure?.milliseconds ?? 0) - p.visit.arrival.milliseconds) / 1000)
            weights += w
            lat += p.visit.latitude * w
            lon += p.visit.longitude * w
        }
        let (latitude, longitude) = (lat / weights, lon / weights)
        let reach =
            pieces.map {
                Geo.distance(lat1: latitude, lon1: longitude, lat2: $0.visit.latitude, lon2: $0.visit.longitude)
                    + $0.visit.horizontalAccuracy
            }.max() ?? first.horizontalAccuracy
        return Place(
            id: first.key ?? 0, visits: pieces.compactMap(\.visit.key),
            name: pieces.lazy.compactMap(\.visit.name).first, address: pieces.lazy.compactMap(\.visit.address).first,
            latitude: latitude, longitude: longitude, horizontalAccuracy: reach,
            arrival: pieces.map(\.visit.arrival).min() ?? first.arrival, departure: departure,
            recordingEnded: recordingEnded, session: pieces[0].session)
    }
}

extension DayTimeline {
    /// UTC midnight of a day written `YYYY-MM-DD`; nil for anything else (`2024-02-30` too).
    public static func midnight(of day: String) -> Timestamp? {
        guard day.utf8.count == 10, day.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil,
            let t = Timestamp(iso8601: day + "T00:00:00Z"), t.iso8601().hasPrefix(day)
        else { return nil }
        return t
    }

    /// The `YYYY-MM-DD` of the UTC day `t` falls in.
    public static func day(of t: Timestamp) -> String { String(t.iso8601().prefix(10)) }

    /// The day before or after `day` (`YYYY-MM-DD`), by `days`.
    public static func day(_ day: String, plus days: Int) -> String? {
        midnight(of: day).map { Self.day(of: Timestamp(milliseconds: $0.milliseconds + Int64(days) * 86_400_000)) }
    }
}
