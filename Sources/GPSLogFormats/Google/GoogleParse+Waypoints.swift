// SPDX-License-Identifier: MIT
import GPSLogModel

/// An activity segment's `waypointPath` (Semantic Location History: `waypoints` of `latE7`/`lngE7` without times,
/// the only path of 2013-era segments). Its points wait (in memory up to 1 MiB, then in a scratch file:
/// `KMLPointQueue`) until the segment's end, where its `duration` is known (the members come in any order), and are
/// then placed between the segment's start and end: the first at the start, the last at the end, the rest by their
/// distance along the path.
struct GoogleWaypointPath {
    /// The points, each with its distance along the path (metres) in `altitude`.
    private let queue = KMLPointQueue()
    private(set) var count = 0
    private var length = 0.0
    private var last: (Double, Double)?

    mutating func add(latitude: Double, longitude: Double) throws {
        if let last {
            length += Geo.distance(lat1: last.0, lon1: last.1, lat2: latitude, lon2: longitude)
        }
        last = (latitude, longitude)
        try queue.append(KMLQueuedPoint(longitude: longitude, latitude: latitude, altitude: length))
        count += 1
    }

    /// Hands on each point with its time between `start` and `end` (by distance; by place in the path when all are
    /// at one spot), in path order.
    func place(from start: Timestamp, to end: Timestamp, _ body: (Double, Double, Timestamp) throws -> Void) throws {
        let span = Double(end.milliseconds - start.milliseconds)
        var i = 0
        while let q = try queue.removeFirst() {
            let share: Double
            if length > 0 {
                share = q.altitude / length
            } else {
                share = count > 1 ? Double(i) / Double(count - 1) : 0
            }
            let time = Timestamp(milliseconds: start.milliseconds + Int64((span * share).rounded()))
            try body(q.latitude, q.longitude, time)
            i += 1
        }
    }
}

extension GoogleParse {
    /// A `waypointPath`'s members (its `{` read): its `waypoints` into `path` (one with a time of its own, which
    /// Google does not write, is reported as a location).
    mutating func waypointPath(into path: inout GoogleWaypointPath) throws {
        while try json.next() != .objectEnd {
            guard json.textEquals("waypoints") else {
                try json.skipValue()
                continue
            }
            try array("'waypoints' is not an array") { parse in
                var f = LocationFields()
                while try parse.json.next() != .objectEnd {
                    if try !parse.locationMember(&f) { try parse.json.skipValue() }
                }
                if f.time != nil {
                    try parse.report(f)
                } else if let p = f.position {
                    try path.add(latitude: p.0, longitude: p.1)
                } else {
                    parse.incomplete += 1
                }
            }
        }
    }

    /// At the end of an activity segment: its waypoint path placed between its start and end, as locations with
    /// its `motion`; true when it was. A path is left out (counted) when the segment has timed `simplifiedRawPath`
    /// points (they say where it was when) or lacks a start or end time.
    mutating func placeWaypoints(
        _ path: GoogleWaypointPath, start: Timestamp?, end: Timestamp?, motion: String?, rawPathTimed: Bool
    ) throws -> Bool {
        guard path.count > 0 else { return false }
        guard !rawPathTimed, let start, let end, end >= start else {
            untimedWaypoints += path.count
            return false
        }
        try path.place(from: start, to: end) { lat, lon, time in
            var e = Entry(id: "", latitude: 0, longitude: 0, time: Timestamp(milliseconds: 0))
            e.motion = motion.map { [$0] }
            try report(e, position: (lat, lon), time: time)
        }
        placedWaypoints += path.count
        placedSegments += 1
        return true
    }
}
