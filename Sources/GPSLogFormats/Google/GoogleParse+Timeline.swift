// SPDX-License-Identifier: MIT
import GPSLogModel

/// The Timeline export of Google Maps on the phone (2024 on): Android's `semanticSegments` and `rawSignals`, and
/// iOS's top-level array of segments.
extension GoogleParse {
    /// A segment (its `{` read): its `timelinePath` points are locations, at their `time` (Android) or
    /// `durationMinutesOffsetFromStartTime` minutes after the segment's `startTime` (iOS, which writes `startTime`
    /// first); its `visit`'s top candidate is a visit from `startTime` to `endTime`. An `activity`'s start and end
    /// are the ends of a path the `timelinePath` segments already hold: skipped, as are `timelineMemory`s.
    mutating func segment() throws {
        var start: Timestamp?
        var end: Timestamp?
        var visit: Place?
        var level = 0.0
        while try json.next() != .objectEnd {
            if json.textEquals("startTime") {
                start = try isoTime()
            } else if json.textEquals("endTime") {
                end = try isoTime()
            } else if json.textEquals("timelinePath") {
                try array("'timelinePath' is not an array") { try $0.pathPoint(segmentStart: start) }
            } else if json.textEquals("visit") {
                try member("'visit' is not an object") { parse in
                    visit = Place()
                    while try parse.json.next() != .objectEnd {
                        if parse.json.textEquals("hierarchyLevel") {
                            level = try parse.looseNumber() ?? 0
                        } else if parse.json.textEquals("topCandidate") {
                            try parse.member("'topCandidate' is not an object") { visit = try $0.candidate() }
                        } else {
                            try parse.json.skipValue()
                        }
                    }
                }
            } else {
                try json.skipValue()
            }
        }
        guard let visit else { return }
        guard level == 0 else {
            nestedVisits += 1
            return
        }
        guard let position = visit.position, let start,
            Geo.isPlausiblePosition(latitude: position.0, longitude: position.1)
        else {
            incompleteVisits += 1
            return
        }
        if let end, end < start {
            throw ImportError.invalidValue(
                file: json.file, line: json.line, field: json.path + " endTime",
                value: end.iso8601() + " (before its startTime, " + start.iso8601() + ")")
        }
        try visitor.visit(
            Visit(
                latitude: position.0, longitude: position.1, horizontalAccuracy: 0, arrival: start, departure: end,
                address: visit.label))
    }

    /// A visit's top candidate (its `{` read): `placeLocation` (`{"latLng": "52.1°, 5.2°"}` on Android,
    /// `"geo:52.1,5.2"` on iOS) and `semanticType` (`HOME`, `WORK`, `UNKNOWN`; the export names no place).
    private mutating func candidate() throws -> Place {
        var p = Place()
        while try json.next() != .objectEnd {
            if json.textEquals("placeLocation") {
                let event = try json.next()
                switch event {
                case .string:
                    guard let position = Self.latLng(json.text) else { throw invalid(json.string) }
                    p.position = position
                case .objectStart:
                    while try json.next() != .objectEnd {
                        if json.textEquals("latLng") || json.textEquals("LatLng") {
                            p.position = try latLngText()
                        } else {
                            try json.skipValue()
                        }
                    }
                case .null: break
                default: throw json.malformed("'placeLocation' is neither a position nor an object")
                }
            } else if json.textEquals("semanticType") {
                p.semanticType = try text()
            } else {
                try json.skipValue()
            }
        }
        return p
    }

    /// A `timelinePath` point (its `{` read): `point` and `time`, or `durationMinutesOffsetFromStartTime`.
    private mutating func pathPoint(segmentStart: Timestamp?) throws {
        var f = LocationFields()
        while try json.next() != .objectEnd {
            if try locationMember(&f) { continue }
            guard json.textEquals("durationMinutesOffsetFromStartTime") else {
                try json.skipValue()
                continue
            }
            guard let minutes = try looseNumber() else { continue }
            guard let segmentStart else {
                throw json.malformed("a path point's minutes from the segment's start come before its 'startTime'")
            }
            guard abs(minutes) < 1e8 else { throw invalid(Self.shown(minutes)) }
            let t = segmentStart.adding(milliseconds: Int64((minutes * 60_000).rounded()))
            f.offsetTime = try checked(t, shown: Self.shown(minutes) + " minutes after " + segmentStart.iso8601())
        }
        try report(f)
    }

    /// A raw signal (its `{` read): a `position` is a location (`LatLng`, `timestamp`, `accuracyMeters`,
    /// `altitudeMeters`, `speedMetersPerSecond`); Wi-Fi scans and activity records are skipped.
    mutating func rawSignal() throws {
        while try json.next() != .objectEnd {
            guard json.textEquals("position") else {
                try json.skipValue()
                continue
            }
            try member("'position' is not an object") { try $0.locationObject() }
        }
    }
}
