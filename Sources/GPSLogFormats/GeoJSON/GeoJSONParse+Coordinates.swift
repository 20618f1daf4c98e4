// SPDX-License-Identifier: MIT
import GPSLogModel

/// Coordinates, times and attributes: a line's positions stream straight to the visitor, paired with its times and
/// attributes, when the feature's properties came first; else all are set aside and paired when the feature ends
/// (`finish`), since attributes may follow the times (gpslog writes the geometry, then `coordTimes`, then
/// `coordAttributes`).
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
        if f.streaming { try checkPairs(positions: f.delivered, f) }
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

    /// A line's position: reported with its time and attributes when the properties have been read, else set aside.
    private mutating func deliver(_ p: GeoJSONPosition, startsPart: Bool, to f: inout Feature) throws {
        if !f.streaming && f.propertiesDone && Self.isLine(f.geometryType) {
            f.streaming = true
            f.timeCursor = f.times?.cursor()
            f.attributeCursor = f.attributes?.cursor()
            try visitor.beginLine(properties: f.properties)
        }
        if f.streaming {
            var time: Int64?
            if f.timeCursor != nil {
                guard let t = try f.timeCursor!.next(SpooledTime.read) else {
                    throw json.malformed("more positions than 'coordTimes' (\(f.times!.count))")
                }
                time = t
            }
            var attributes: [String: String]?
            if f.attributeCursor != nil {
                guard let a = try f.attributeCursor!.next(SpooledAttributes.read) else {
                    throw json.malformed("more positions than 'coordAttributes' (\(f.attributes!.count))")
                }
                attributes = a
            }
            f.delivered += 1
            try visitor.linePoint(
                p, time: time.map { Timestamp(milliseconds: $0) }, attributes: attributes, startsPart: startsPart)
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
        // Both coordTimes and coordinateProperties.times, or times after the line was reported (a second
        // `properties`): the first is used.
        guard f.times == nil && !f.streaming else {
            try json.skipRest()
            return
        }
        let spool = GeoJSONSpool(recordSize: SpooledTime.size)
        let level = json.depth
        while json.depth >= level {
            let e = try json.next()
            switch e {
            case .arrayStart, .arrayEnd: continue
            case .string, .number, .null:
                let t = try GeoJSONProperties.time(e, &json, milliseconds: false, window: window)
                try spool.append { SpooledTime.append(t?.milliseconds, to: &$0) }
            default: throw json.malformed("a time is ISO 8601 text, a number or null")
            }
        }
        f.times = spool
    }

    /// Times and attributes pair one to one with the positions.
    private func checkPairs(positions: Int, _ f: Feature) throws {
        for (name, spool) in [("coordTimes", f.times), ("coordAttributes", f.attributes)] {
            if let spool, spool.count != positions {
                throw json.malformed("\(positions) positions but \(spool.count) '\(name)' (they pair one to one)")
            }
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
            if f.attributes != nil { pointsWithAttributes += 1 }
            if let p = f.point { try visitor.point(p, properties: f.properties) }
        case "LineString", "MultiLineString", "MultiPoint":
            // All checked before the first is reported.
            try checkPairs(positions: f.positions?.count ?? 0, f)
            guard let positions = f.positions else { return }
            try visitor.beginLine(properties: f.properties)
            var cursor = positions.cursor()
            var timeCursor = f.times?.cursor()
            var attributeCursor = f.attributes?.cursor()
            while let (p, startsPart) = try cursor.next(SpooledPosition.read) {
                let time = try timeCursor?.next(SpooledTime.read) ?? nil
                let attributes = try attributeCursor?.next(SpooledAttributes.read) ?? nil
                try visitor.linePoint(
                    p, time: time.map { Timestamp(milliseconds: $0) }, attributes: attributes, startsPart: startsPart)
            }
            try visitor.endLine()
        default:
            count(type)
        }
    }
}
