// SPDX-License-Identifier: MIT
import GPSLogModel

/// Takeout's Semantic Location History (a file per month): `timelineObjects`, each an `activitySegment` or a
/// `placeVisit`.
extension GoogleParse {
    /// A semantic file's place: where, how precisely, and what it is called.
    struct Place {
        var position: (Double, Double)?
        var accuracy: Double?
        var name: String?
        var address: String?
        var semanticType: String?

        /// The name and address as one line: "La Sagrada Familia, C/ de Mallorca, 401, 08013 Barcelona" (Google
        /// writes addresses on several lines); the semantic type ("Home") when there is no name.
        var label: String? {
            let lines = address?.split(whereSeparator: \.isNewline).map { $0.trimmedWhitespace }.filter { !$0.isEmpty }
            let joined = lines.flatMap { $0.isEmpty ? nil : $0.joined(separator: ", ") }
            let title = name?.trimmedWhitespace.nilIfEmpty ?? semanticType.flatMap(GoogleParse.placeLabel)
            guard let title else { return joined }
            guard let joined, !joined.hasPrefix(title) else { return title }
            return title + ", " + joined
        }
    }

    mutating func timelineObjects() throws {
        try array("'timelineObjects' is not an array") { parse in
            while try parse.json.next() != .objectEnd {
                if parse.json.textEquals("activitySegment") {
                    try parse.member("'activitySegment' is not an object") { try $0.activitySegment() }
                } else if parse.json.textEquals("placeVisit") {
                    try parse.member("'placeVisit' is not an object") { try $0.placeVisit() }
                } else {
                    try parse.json.skipValue()
                }
            }
        }
    }

    /// An object member whose key was just read, read by `body` (its `{` taken); null is none.
    mutating func member(_ refusal: String, _ body: (inout GoogleParse) throws -> Void) throws {
        let event = try json.next()
        if event == .null { return }
        guard event == .objectStart else { throw json.malformed(refusal) }
        try body(&self)
    }

    /// A journey: its start and end locations at the segment's start and end, and the timed points of its
    /// `simplifiedRawPath`, as locations (with the segment's activity as their motion). Its `waypointPath` points
    /// have no time: without timed raw path points, they are placed between the segment's start and end
    /// (`GoogleWaypointPath`), else counted and skipped.
    private mutating func activitySegment() throws {
        var start: Place?
        var end: Place?
        var times: (start: Timestamp?, end: Timestamp?) = (nil, nil)
        var motion: String?
        var path = GoogleWaypointPath()
        let reportedBefore = reported
        var rawPathTimed = false
        while try json.next() != .objectEnd {
            if json.textEquals("startLocation") {
                try member("'startLocation' is not an object") { start = try $0.place() }
            } else if json.textEquals("endLocation") {
                try member("'endLocation' is not an object") { end = try $0.place() }
            } else if json.textEquals("duration") {
                try member("'duration' is not an object") { times = try $0.duration() }
            } else if json.textEquals("activityType") {
                motion = try text().flatMap { Self.motion(Array($0.utf8)) }
            } else if json.textEquals("simplifiedRawPath") {
                try member("'simplifiedRawPath' is not an object") { try $0.rawPath(motion: motion) }
                rawPathTimed = rawPathTimed || reported > reportedBefore
            } else if json.textEquals("waypointPath") {
                try member("'waypointPath' is not an object") { try $0.waypointPath(into: &path) }
            } else {
                try json.skipValue()
            }
        }
        let placed = try placeWaypoints(
            path, start: times.start, end: times.end, motion: motion, rawPathTimed: rawPathTimed)
        for (place, time) in [(start, times.start), (end, times.end)] where place != nil || time != nil {
            // The placed path's ends stand for start and end locations without a position (2013-era: `{}`).
            if placed && place?.position == nil { continue }
            var e = Entry(id: "", latitude: 0, longitude: 0, time: Timestamp(milliseconds: 0))
            e.horizontalAccuracy = place?.accuracy
            e.motion = motion.map { [$0] }
            try report(e, position: place?.position, time: time)
        }
    }

    /// A stay: the place's `location` (its name and address), else the visit's centre, from the `duration`'s start to
    /// its end; the timed points of its `simplifiedRawPath` are locations. `childVisits` (places inside this one) are
    /// counted and skipped.
    private mutating func placeVisit() throws {
        var place = Place()
        var center: (latitude: Double?, longitude: Double?) = (nil, nil)
        var times: (start: Timestamp?, end: Timestamp?) = (nil, nil)
        var timesPath = ""
        while try json.next() != .objectEnd {
            if json.textEquals("location") {
                try member("'location' is not an object") { place = try $0.place() }
            } else if json.textEquals("centerLatE7") {
                center.latitude = try e7(latitude: true)
            } else if json.textEquals("centerLngE7") {
                center.longitude = try e7(latitude: false)
            } else if json.textEquals("duration") {
                timesPath = json.path
                try member("'duration' is not an object") { times = try $0.duration() }
            } else if json.textEquals("simplifiedRawPath") {
                try member("'simplifiedRawPath' is not an object") { try $0.rawPath(motion: nil) }
            } else if json.textEquals("childVisits") {
                try array("'childVisits' is not an array") { child in
                    try child.json.skipRest()
                    child.nestedVisits += 1
                }
            } else {
                try json.skipValue()
            }
        }
        if place.position == nil, let lat = center.latitude, let lon = center.longitude { place.position = (lat, lon) }
        guard let position = place.position, let arrival = times.start,
            Geo.isPlausiblePosition(latitude: position.0, longitude: position.1)
        else {
            incompleteVisits += 1
            return
        }
        if let departure = times.end, departure < arrival {
            throw ImportError.invalidValue(
                file: json.file, line: json.line, field: timesPath + ".endTimestamp",
                value: departure.iso8601() + " (before the start, " + arrival.iso8601() + ")")
        }
        try visitor.visit(
            Visit(
                latitude: position.0, longitude: position.1, horizontalAccuracy: place.accuracy ?? 0, arrival: arrival,
                departure: times.end, address: place.label))
    }

    /// A location object's members (its `{` read): a location's (`latitudeE7`, `longitudeE7`, `accuracyMetres`), and
    /// `name`, `address`, `semanticType`.
    private mutating func place() throws -> Place {
        var p = Place()
        var f = LocationFields()
        while try json.next() != .objectEnd {
            if try locationMember(&f) { continue }
            if json.textEquals("name") {
                p.name = try text()
            } else if json.textEquals("address") {
                p.address = try text()
            } else if json.textEquals("semanticType") {
                p.semanticType = try text()
            } else {
                try json.skipValue()
            }
        }
        p.position = f.position
        p.accuracy = f.entry.horizontalAccuracy
        return p
    }

    /// A `duration`'s members (its `{` read): `startTimestamp` and `endTimestamp` (ISO 8601), or before 2022
    /// `startTimestampMs` and `endTimestampMs`.
    private mutating func duration() throws -> (start: Timestamp?, end: Timestamp?) {
        var times: (start: Timestamp?, end: Timestamp?) = (nil, nil)
        while try json.next() != .objectEnd {
            if json.textEquals("startTimestamp") {
                times.start = try isoTime() ?? times.start
            } else if json.textEquals("endTimestamp") {
                times.end = try isoTime() ?? times.end
            } else if json.textEquals("startTimestampMs") {
                times.start = try millisecondsTime() ?? times.start
            } else if json.textEquals("endTimestampMs") {
                times.end = try millisecondsTime() ?? times.end
            } else {
                try json.skipValue()
            }
        }
        return times
    }

    /// A `simplifiedRawPath`'s members (its `{` read): its `points`, each with `latE7`, `lngE7`, `accuracyMeters`
    /// and `timestamp` (or `timestampMs`), reported as locations.
    private mutating func rawPath(motion: String?) throws {
        while try json.next() != .objectEnd {
            guard json.textEquals("points") else {
                try json.skipValue()
                continue
            }
            try array("'points' is not an array") { try $0.locationObject(motion: motion) }
        }
    }
}

extension String {
    /// nil for an empty string.
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
