// SPDX-License-Identifier: MIT
import GPSLogModel

/// Coordinates and times: whichever of a line's two arrays comes first is set aside; the second streams, paired
/// with it, straight to the visitor.
extension GeoJSONParse {
    /// `coordinates`: a position (Point), a list of them (LineString, MultiPoint), lists of lists (MultiLineString,
    /// Polygon); deeper is skipped (MultiPolygon).
    mutating func coordinates(_ f: inout Feature) throws {
        guard try json.next() == .arrayStart else { throw json.malformed("'coordinates' is not an array") }
        let level = json.depth
        let notPositions = "a position is an array of numbers"
        let first = try json.next()
        if let v = try number(first) {
            f.nesting = 1
            f.point = try position(startingWith: v)
        } else if first == .arrayStart {
            let second = try json.next()
            if let v = try number(second) {
                f.nesting = 2
                try line(&f, firstNumber: v, startsPart: false)
            } else if second == .arrayEnd {
                f.nesting = 3  // an empty first line
                try parts(&f)
            } else if second == .arrayStart {
                let third = try json.next()
                if third != .arrayStart, let v = try number(third) {
                    f.nesting = 3
                    try line(&f, firstNumber: v, startsPart: false)
                    try parts(&f)
                } else {
                    f.nesting = 4  // deeper than any line: a MultiPolygon, skipped
                    try json.skip(third)
                    while json.depth >= level { _ = try json.next() }
                }
            } else {
                throw json.malformed(notPositions)
            }
        } else if first != .arrayEnd {  // empty: any geometry
            throw json.malformed(notPositions)
        }
        f.positionsDone = true
        if f.streaming { try endStream(&f) }
    }

    /// The lines of a MultiLineString after its first, up to its `]`.
    private mutating func parts(_ f: inout Feature) throws {
        while true {
            let event = try json.next()
            if event == .arrayEnd { return }
            guard event == .arrayStart else { throw json.malformed("a line is an array of positions") }
            let first = try json.next()
            if first == .arrayEnd { continue }
            guard first == .arrayStart, let v = try number(json.next()) else {
                throw json.malformed("a position is an array of numbers")
            }
            try line(&f, firstNumber: v, startsPart: true)
        }
    }

    /// The positions of one line (its first position already open, `firstNumber` read), up to the line's `]`.
    private mutating func line(_ f: inout Feature, firstNumber: Double, startsPart: Bool) throws {
        var p = try position(startingWith: firstNumber)
        var partStart = startsPart
        while true {
            try deliver(p, startsPart: partStart, to: &f)
            partStart = false
            let event = try json.next()
            if event == .arrayEnd { return }
            guard event == .arrayStart, let v = try number(json.next()) else {
                throw json.malformed("a position is an array of numbers")
            }
            p = try position(startingWith: v)
        }
    }

    /// A position whose first number is read: two or more numbers (a fourth and more are ignored), longitude and
    /// latitude in range.
    private mutating func position(startingWith lon: Double) throws -> GeoJSONPosition {
        var numbers = 1
        var lat = 0.0
        var alt: Double?
        while true {
            let event = try json.next()
            if event == .arrayEnd { break }
            guard let v = try number(event) else { throw json.malformed("a position holds numbers only") }
            numbers += 1
            if numbers == 2 { lat = v } else if numbers == 3 { alt = v }
        }
        guard numbers >= 2 else { throw json.malformed("a position needs a longitude and a latitude") }
        guard abs(lon) <= 180, abs(lat) <= 90 else {
            throw ImportError.invalidValue(
                file: json.file, line: json.line, field: json.path + " (longitude, latitude)", value: "\(lon), \(lat)")
        }
        return GeoJSONPosition(longitude: lon, latitude: lat, altitude: alt)
    }

    /// A number of a position: a JSON number, or one written as text (`"0.1"`, as an older version of a popular
    /// self-hosted server exported them), counted for a note; nil for any other event. Text that is not a number
    /// (JSON's grammar, white space around it allowed) is refused with its path.
    private mutating func number(_ event: JSONStreamReader.Event) throws -> Double? {
        switch event {
        case .number(let v): return v
        case .string:
            let t = Array(ByteNumber.trimmed(json.text))
            guard t.count < 64, JSONNumberGrammar.matches(t), let v = ByteNumber.double(t) else {
                throw ImportError.invalidValue(
                    file: json.file, line: json.line, field: json.path + " (a coordinate)",
                    value: json.string.truncated(to: 60))
            }
            numbersAsText += 1
            return v
        default: return nil
        }
    }

    /// A line's position: reported with its time when the times came first, else set aside for them.
    private mutating func deliver(_ p: GeoJSONPosition, startsPart: Bool, to f: inout Feature) throws {
        if !f.streaming && f.timesDone && Self.isLine(f.geometryType) && f.times != nil {
            try beginStream(&f)
        }
        if f.streaming {
            guard let time = try f.timeCursor!.next(SpooledTime.read) else {
                throw json.malformed("more positions than 'coordTimes' (\(f.times!.count))")
            }
            f.delivered += 1
            try visitor.linePoint(p, time: time.map { Timestamp(milliseconds: $0) }, startsPart: startsPart)
            return
        }
        if f.positions == nil { f.positions = GeoJSONSpool(recordSize: SpooledPosition.size) }
        try f.positions!.append { SpooledPosition.append(p, startsPart: startsPart, to: &$0) }
    }

    /// `coordTimes` (togeojson; nested per line for a MultiLineString) or `coordinateProperties.times`: ISO 8601
    /// text (or Unix times), null for none. A single string is a Point's time.
    mutating func times(_ f: inout Feature) throws {
        let event = try json.next()
        guard event == .arrayStart else {
            if f.properties.time == nil {
                f.properties.time = try GeoJSONProperties.time(event, &json, milliseconds: false, window: window)
            } else {
                try json.skip(event)
            }
            return
        }
        guard f.times == nil else {  // both coordTimes and coordinateProperties.times: the first is used
            try json.skipRest()
            return
        }
        let level = json.depth
        while json.depth >= level {
            let e = try json.next()
            switch e {
            case .arrayStart, .arrayEnd: continue
            case .string, .number, .null:
                let t = try GeoJSONProperties.time(e, &json, milliseconds: false, window: window)
                try deliver(t?.milliseconds, to: &f)
            default: throw json.malformed("a time is ISO 8601 text, a number or null")
            }
        }
        f.timesDone = true
        if f.streaming { try endStream(&f) }
    }

    private mutating func deliver(_ time: Int64?, to f: inout Feature) throws {
        if f.times == nil { f.times = GeoJSONSpool(recordSize: SpooledTime.size) }
        if !f.streaming && f.positionsDone && Self.isLine(f.geometryType) && f.positions != nil {
            try beginStream(&f)
        }
        if f.streaming {
            guard let (p, startsPart) = try f.positionCursor!.next(SpooledPosition.read) else {
                throw json.malformed("more 'coordTimes' than positions (\(f.positions!.count))")
            }
            f.delivered += 1
            try visitor.linePoint(p, time: time.map { Timestamp(milliseconds: $0) }, startsPart: startsPart)
            return
        }
        try f.times!.append { SpooledTime.append(time, to: &$0) }
    }

    /// The second array starts: the line is reported from here on, paired with the first.
    private mutating func beginStream(_ f: inout Feature) throws {
        f.streaming = true
        if f.positionsDone {
            f.positionCursor = f.positions!.cursor()
        } else {
            f.timeCursor = f.times!.cursor()
        }
        try visitor.beginLine(properties: f.properties)
    }

    /// The second array has ended: it must have been as long as the first.
    private mutating func endStream(_ f: inout Feature) throws {
        let expected = f.positionCursor != nil ? f.positions!.count : f.times!.count
        guard f.delivered == expected else {
            throw json.malformed(
                "\(f.positions?.count ?? 0) positions but \(f.times?.count ?? 0) 'coordTimes' (they pair one to one)")
        }
    }

    /// The feature has ended: report what was not reported yet, after checking its geometry.
    mutating func finish(_ f: inout Feature) throws {
        guard let type = f.geometryType else {
            if f.type == "Feature" && !f.hasGeometry { throw json.malformed("a Feature without 'geometry'") }
            count("geometry-less")
            return
        }
        guard let nesting = Self.nesting(of: type) else {
            if type == "GeometryCollection" {
                count(type)
                return
            }
            throw json.malformed("'\(type.visible)' is not a GeoJSON geometry type")
        }
        guard f.nesting == 0 || f.nesting == nesting else {
            throw json.malformed("the coordinates of a \(type) do not nest as RFC 7946 says")
        }
        if f.streaming {
            try visitor.endLine()
            return
        }
        switch type {
        case "Point":
            if let p = f.point { try visitor.point(p, properties: f.properties) }
        case "LineString", "MultiLineString", "MultiPoint":
            guard let positions = f.positions else { return }
            if let times = f.times, times.count != positions.count {
                throw json.malformed(
                    "\(positions.count) positions but \(times.count) 'coordTimes' (they pair one to one)")
            }
            try visitor.beginLine(properties: f.properties)
            var cursor = positions.cursor()
            var timeCursor = f.times?.cursor()
            while let (p, startsPart) = try cursor.next(SpooledPosition.read) {
                let time = try timeCursor?.next(SpooledTime.read) ?? nil
                try visitor.linePoint(p, time: time.map { Timestamp(milliseconds: $0) }, startsPart: startsPart)
            }
            try visitor.endLine()
        default:
            count(type)
        }
    }
}
