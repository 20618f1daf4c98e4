// SPDX-License-Identifier: MIT
import GPSLogModel

/// What a `GeoJSONReader` reports, in file order, one call at a time.
public protocol GeoJSONVisitor: AnyObject {
    /// A Point feature (or a bare Point geometry), with what its properties say.
    func point(_ position: GeoJSONPosition, properties: GeoJSONProperties) throws
    /// A LineString, MultiLineString or MultiPoint feature starts, with its properties (all of them: the line is
    /// reported once they have been read, as its positions stream after them or when the feature ends).
    func beginLine(properties: GeoJSONProperties) throws
    /// The next position of the line, with its time from the feature's `coordTimes` (or togeojson's
    /// `coordinateProperties.times`) and its attributes from `coordAttributes` (gpslog's) when it has them;
    /// `startsPart` for the first of a MultiLineString's second and later lines.
    func linePoint(
        _ position: GeoJSONPosition, time: Timestamp?, attributes: [String: String]?, startsPart: Bool) throws
    /// The line ends.
    func endLine() throws
    /// Something the user should know about the file (features skipped), said once, without the file's name.
    func note(_ text: String)
}

/// Reads GeoJSON (RFC 7946) as a stream with `JSONStreamReader`: a FeatureCollection, a Feature or a bare geometry,
/// its members in any order. Points are reported as they end; a line's positions are paired with its times and
/// attributes (`coordAttributes`) as they stream by when the properties came first, else when the feature ends, what
/// came first set aside in a scratch file (`GeoJSONSpool`), so memory stays flat whatever the track's length.
/// Checked as RFC 7946 says: `type`s (`Feature`s in `features`, known geometry types with coordinates nested as they
/// say), positions of two or more numbers with longitude and latitude in range, `coordTimes` and `coordAttributes` as
/// many as the positions, and no `crs` but WGS 84's. Polygons and GeometryCollections are skipped, with a note.
public enum GeoJSONReader {
    /// Parses the file at `path`, calling `visitor` for each point and line.
    /// - Throws: `ImportError` naming the file, line and JSON path.
    public static func read(_ path: String, into visitor: any GeoJSONVisitor) throws {
        var parse = try GeoJSONParse(file: path, visitor: visitor)
        defer { parse.json.close() }
        try parse.document()
    }
}

/// One read of a GeoJSON document (see `GeoJSONReader`).
struct GeoJSONParse {
    var json: JSONStreamReader
    let visitor: any GeoJSONVisitor
    let window = TimeWindow.current
    /// Features skipped, by geometry type, in the order first met.
    var skipped: [(String, Int)] = []
    /// Coordinates written as text (`"0.1"`), read as numbers.
    var numbersAsText = 0
    /// Attributes of `coordAttributes` over a bound, for a note.
    var attributesLeftOut = AttributesLeftOut()
    /// Point features with `coordAttributes` (gpslog writes them for lines only; a Point's are not read).
    var pointsWithAttributes = 0

    /// One feature's (or bare geometry's) state while its members stream by.
    struct Feature {
        var type: String?
        var properties = GeoJSONProperties()
        var geometryType: String?
        var hasGeometry = false
        /// How deep the coordinates nest: 1 a position, 2 a list of them, 3 lists of lists, 4 deeper still.
        var nesting = 0
        var point: GeoJSONPosition?
        var positions: GeoJSONSpool?
        var times: GeoJSONSpool?
        /// `coordAttributes`, a record per position.
        var attributes: GeoJSONSpool?
        /// The properties have been read: no times or attributes come after.
        var propertiesDone = false
        /// The line is being (or has been) reported as its positions stream.
        var streaming = false
        /// While streaming: the times and attributes, read back.
        var timeCursor: GeoJSONSpool.Cursor?
        var attributeCursor: GeoJSONSpool.Cursor?
        var delivered = 0
    }

    init(file: String, visitor: any GeoJSONVisitor) throws {
        json = try JSONStreamReader(file: file)
        self.visitor = visitor
    }

    mutating func document() throws {
        guard try json.next() == .objectStart else {
            throw json.malformed("GeoJSON is a JSON object (a FeatureCollection, a Feature or a geometry)")
        }
        try object(top: true)
        guard try json.next() == .end else { throw json.malformed("more after the end of the GeoJSON object") }
        let notes = skipped.map { "\($0.1) \($0.0)" }
        if !notes.isEmpty {
            visitor.note("skipped \(notes.joined(separator: ", ")) feature(s): neither tracks nor points")
        }
        if numbersAsText > 0 {
            visitor.note("read \(numbersAsText) coordinate(s) written as text (\"0.1\", not 0.1) as numbers")
        }
        if let note = attributesLeftOut.note { visitor.note(note) }
        if pointsWithAttributes > 0 {
            visitor.note(
                "did not read the 'coordAttributes' of \(pointsWithAttributes) Point feature(s): a line's only")
        }
    }

    /// The members of an object just opened: a FeatureCollection (top level only), a Feature or a geometry.
    private mutating func object(top: Bool) throws {
        var f = Feature()
        var isCollection = false
        while true {
            let event = try json.next()
            if event == .objectEnd { break }
            if json.textEquals("type") {
                guard try json.next() == .string else { throw json.malformed("'type' is not a string") }
                f.type = String(decoding: json.text.prefix(64), as: UTF8.self)
                if f.geometryType == nil && !f.hasGeometry && Self.nesting(of: f.type!) != nil {
                    f.geometryType = f.type  // a bare geometry
                }
            } else if top && json.textEquals("features") {
                isCollection = true
                try features()
            } else if json.textEquals("geometry") {
                f.hasGeometry = true
                try geometry(&f)
            } else if json.textEquals("properties") {
                try properties(&f)
            } else if json.textEquals("coordinates") {
                try coordinates(&f)
            } else if json.textEquals("crs") {
                try crs()
            } else {
                try json.skipValue()  // bbox, id, name, geometries, foreign members
            }
        }
        if isCollection {
            if let type = f.type, type != "FeatureCollection" {
                throw json.malformed("'type' is '\(type.visible)' but the object has 'features'")
            }
            return
        }
        if !top || f.type == "Feature" || f.hasGeometry {
            guard f.type == "Feature" || f.type == nil else {
                throw json.malformed("'type' is '\(f.type!.visible)', not 'Feature'")
            }
        } else if f.type == "GeometryCollection" {
            count("GeometryCollection")
            return
        } else if f.geometryType == nil {
            throw json.malformed("not GeoJSON: no 'features', 'geometry' or known geometry 'type'")
        }
        try finish(&f)
    }

    private mutating func features() throws {
        guard try json.next() == .arrayStart else { throw json.malformed("'features' is not an array") }
        while true {
            switch try json.next() {
            case .arrayEnd: return
            case .objectStart: try object(top: false)
            default: throw json.malformed("not a Feature object")
            }
        }
    }

    private mutating func geometry(_ f: inout Feature) throws {
        let event = try json.next()
        if event == .null { return }
        guard event == .objectStart else { throw json.malformed("'geometry' is neither an object nor null") }
        while try json.next() != .objectEnd {
            if json.textEquals("type") {
                guard try json.next() == .string else { throw json.malformed("'type' is not a string") }
                f.geometryType = String(decoding: json.text.prefix(64), as: UTF8.self)
            } else if json.textEquals("coordinates") {
                try coordinates(&f)
            } else {
                try json.skipValue()  // bbox, geometries (a GeometryCollection is skipped below)
            }
        }
        if f.geometryType == nil { throw json.malformed("a geometry without 'type'") }
    }

    private mutating func properties(_ f: inout Feature) throws {
        let event = try json.next()
        defer { f.propertiesDone = true }
        if event == .null { return }
        guard event == .objectStart else { throw json.malformed("'properties' is neither an object nor null") }
        while try json.next() != .objectEnd {
            if json.textEquals("coordTimes") {
                try times(&f)
            } else if json.textEquals("coordAttributes") {
                try attributes(&f)
            } else if json.textEquals("coordinateProperties") {
                let value = try json.next()
                guard value == .objectStart else {
                    try json.skip(value)
                    continue
                }
                while try json.next() != .objectEnd {
                    if json.textEquals("times") { try times(&f) } else { try json.skipValue() }
                }
            } else if try !f.properties.read(&json, window: window) {
                try json.skipValue()
            }
        }
        if f.properties.time == nil { f.properties.time = f.properties.otherTime }
    }

    /// `crs` is not in RFC 7946; GDAL writes it naming CRS84 (WGS 84, longitude first), which is what GeoJSON is.
    /// Any other is refused: its numbers are not longitudes and latitudes.
    private mutating func crs() throws {
        var name = ""
        let event = try json.next()
        if event == .objectStart {
            while try json.next() != .objectEnd {
                guard json.textEquals("properties") else {
                    try json.skipValue()
                    continue
                }
                let value = try json.next()
                guard value == .objectStart else {
                    try json.skip(value)
                    continue
                }
                while try json.next() != .objectEnd {
                    guard json.textEquals("name") else {
                        try json.skipValue()
                        continue
                    }
                    let n = try json.next()
                    if n == .string { name = json.string } else { try json.skip(n) }
                }
            }
        } else {
            try json.skip(event)
        }
        let ok = [
            "urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84", "EPSG:4326", "urn:ogc:def:crs:EPSG::4326",
        ]
        guard name.isEmpty || ok.contains(name) else {
            throw json.malformed(
                "'crs' is '\(name.truncated(to: 80).visible)': gpslog reads WGS 84 longitude and latitude only (RFC 7946)"
            )
        }
    }

    mutating func count(_ type: String) {
        if let i = skipped.firstIndex(where: { $0.0 == type }) {
            skipped[i].1 += 1
        } else {
            skipped.append((type, 1))
        }
    }

    /// How deep a geometry type's coordinates nest; nil for a type that is not a geometry with coordinates.
    static func nesting(of type: String) -> Int? {
        switch type {
        case "Point": return 1
        case "LineString", "MultiPoint": return 2
        case "MultiLineString", "Polygon": return 3
        case "MultiPolygon": return 4
        default: return nil
        }
    }

    static func isLine(_ type: String?) -> Bool {
        type == "LineString" || type == "MultiLineString" || type == "MultiPoint"
    }
}
