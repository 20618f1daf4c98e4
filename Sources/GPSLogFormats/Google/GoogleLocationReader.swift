// SPDX-License-Identifier: MIT
import GPSLogModel

/// What a `GoogleLocationReader` reports, in file order, one call at a time.
public protocol GoogleLocationVisitor: AnyObject {
    /// A location: a track point with its time, position and what the file says of it (its `id` empty).
    func location(_ entry: Entry) throws
    /// A stay at a place (a `placeVisit`, a segment's `visit`), its name and address in `address`.
    func visit(_ visit: Visit) throws
    /// Something the user should know about the file (records skipped, values read as negative), said once, without
    /// the file's name.
    func note(_ text: String)
}

/// Reads Google's location history as a stream with `JSONStreamReader`, whichever of its layouts the file has (the
/// layouts as locationhistoryformat.com and the converters that read them describe them):
///
/// - Takeout's `Records.json`: `{"locations": [...]}`, each record with `latitudeE7`/`longitudeE7` (degrees times
///   10^7), `timestamp` (ISO 8601) or, before 2022, `timestampMs` (Unix milliseconds as a string), `accuracy`,
///   `altitude`, `verticalAccuracy`, `velocity` (m/s), `heading`, `deviceTag`, `activity`.
/// - Takeout's Semantic Location History, a file per month: `{"timelineObjects": [...]}` of `activitySegment`s (their
///   start and end locations at the segment's `duration`, the timed points of `simplifiedRawPath`, else the untimed
///   `waypointPath` placed between the segment's start and end) and `placeVisit`s (a place's `location` with `name`
///   and `address`, and the visit's `duration`).
/// - The Timeline export of Google Maps on the phone (2024 on): Android's `{"semanticSegments": [...], "rawSignals":
///   [...]}`, positions written `"52.1°, 5.2°"`, and iOS's top-level array of the same segments, positions written
///   `"geo:52.1,5.2"` and path times as minutes from the segment's start. A segment's `timelinePath` points and
///   the raw signals' `position`s are locations; a `visit`'s top candidate is a visit.
///
/// Memory stays flat: nothing is kept but the record being read (and a segment's `waypointPath`, in a scratch file
/// past 1 MiB). Hostile input is refused with the file, the line
/// and the JSON path (`locations[3].latitudeE7`): the reader's own refusals (nesting, NaN, `1e400`, truncation,
/// invalid UTF-8), a value of the wrong type, a coordinate out of range, a time that is not one or not between
/// 1980 and tomorrow. A record without a position or a time is skipped and counted.
public enum GoogleLocationReader {
    /// Parses the file at `path`, calling `visitor` for each location and visit.
    /// - Throws: `ImportError` naming the file, line and JSON path.
    public static func read(_ path: String, into visitor: any GoogleLocationVisitor) throws {
        var parse = try GoogleParse(file: path, visitor: visitor)
        defer { parse.json.close() }
        try parse.document()
    }
}

/// One read of a Google location history file (see `GoogleLocationReader`).
struct GoogleParse {
    var json: JSONStreamReader
    let visitor: any GoogleLocationVisitor
    let window = TimeWindow.current

    /// Records and points without a position or a time.
    var incomplete = 0
    /// Locations at exactly 0, 0 (no position).
    var atZero = 0
    /// E7 values over 1,800,000,000 read as 32-bit two's complement.
    var wrapped = 0
    /// Locations reported so far.
    var reported = 0
    /// `waypointPath` points left out: they have no times, and their segment has timed raw path points or no start
    /// and end.
    var untimedWaypoints = 0
    /// `waypointPath` points placed between their segment's start and end, and those segments.
    var placedWaypoints = 0
    var placedSegments = 0
    /// `childVisits` and visits of a `hierarchyLevel` above 0: places inside the place of another visit.
    var nestedVisits = 0
    /// Visits without a place or a time.
    var incompleteVisits = 0

    init(file: String, visitor: any GoogleLocationVisitor) throws {
        json = try JSONStreamReader(file: file)
        self.visitor = visitor
    }

    mutating func document() throws {
        switch try json.next() {
        case .objectStart: try topObject()
        case .arrayStart: try segments()  // the iOS export
        default:
            throw json.malformed(
                "Google location history is a JSON object (Records.json, a Semantic Location History month, an Android Timeline export) or an array (the iOS Timeline export)"
            )
        }
        guard try json.next() == .end else { throw json.malformed("more after the end of the JSON value") }
        sayNotes()
    }

    /// The members of the top-level object: whichever of the layouts' arrays it has; anything else is skipped
    /// (`userLocationProfile`, Settings).
    private mutating func topObject() throws {
        var known = false
        while try json.next() != .objectEnd {
            if json.textEquals("locations") {
                try records()
            } else if json.textEquals("timelineObjects") {
                try timelineObjects()
            } else if json.textEquals("semanticSegments") {
                try array("'semanticSegments' is not an array") { try $0.segment() }
            } else if json.textEquals("rawSignals") {
                try array("'rawSignals' is not an array") { try $0.rawSignal() }
            } else {
                try json.skipValue()
                continue
            }
            known = true
        }
        guard known else {
            throw json.malformed(
                "not Google location history: no 'locations', 'timelineObjects', 'semanticSegments' or 'rawSignals'")
        }
    }

    /// The iOS export: a top-level array of segments.
    private mutating func segments() throws {
        while true {
            switch try json.next() {
            case .arrayEnd: return
            case .objectStart: try segment()
            default: throw json.malformed("a timeline segment is an object")
            }
        }
    }

    /// An array of objects whose key was just read, each read by `element` (its `{` taken); null is none.
    mutating func array(_ refusal: String, _ element: (inout GoogleParse) throws -> Void) throws {
        let event = try json.next()
        if event == .null { return }
        guard event == .arrayStart else { throw json.malformed(refusal) }
        while true {
            switch try json.next() {
            case .arrayEnd: return
            case .objectStart: try element(&self)
            case .null: continue
            default: throw json.malformed("an object expected")
            }
        }
    }

    /// Reports a location that has a position and a time; counts one that has not.
    mutating func report(_ entry: Entry, position: (Double, Double)?, time: Timestamp?) throws {
        guard let position, let time else {
            incomplete += 1
            return
        }
        guard Geo.isPlausiblePosition(latitude: position.0, longitude: position.1) else {
            atZero += 1
            return
        }
        var e = entry
        e.latitude = position.0
        e.longitude = position.1
        e.time = time
        reported += 1
        try visitor.location(e)
    }

    private func sayNotes() {
        if incomplete > 0 { visitor.note("skipped \(incomplete) location(s) without a position or a time") }
        if atZero > 0 { visitor.note("skipped \(atZero) location(s) at 0, 0 (no position)") }
        if wrapped > 0 {
            visitor.note(
                "read \(wrapped) latitudeE7/longitudeE7 value(s) over 1800000000 as negative (a 32-bit overflow in old exports)"
            )
        }
        if placedWaypoints > 0 {
            visitor.note(
                "placed \(placedWaypoints) waypointPath point(s) of \(placedSegments) activity segment(s), which have "
                    + "no times, between the segment's start and end: the first at the start, the last at the end, "
                    + "the rest by distance along the path")
        }
        if untimedWaypoints > 0 {
            visitor.note(
                "skipped \(untimedWaypoints) waypointPath point(s): they have no times, and their segment has timed "
                    + "simplifiedRawPath points or no start and end time")
        }
        if nestedVisits > 0 {
            visitor.note("skipped \(nestedVisits) visit(s) to places inside the place of another visit")
        }
        if incompleteVisits > 0 { visitor.note("skipped \(incompleteVisits) visit(s) without a place or a time") }
    }
}
