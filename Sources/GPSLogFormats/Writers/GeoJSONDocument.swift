// SPDX-License-Identifier: MIT
import GPSLogModel

/// The FeatureCollection being written: per session its track, then its marks. `GeoJSONWriter` writes one from a
/// store; `convert` streams one as it parses (see `GeoJSONStream`).
public struct GeoJSONDocument {
    let out: any ByteSink
    private var firstFeature = true

    /// A document written to `out`.
    public init(_ out: any ByteSink) { self.out = out }

    /// Opens the FeatureCollection.
    public func begin() throws { try out.write("{\"type\":\"FeatureCollection\",\"features\":[") }

    /// Closes the FeatureCollection.
    public func end() throws { try out.write("\n]}\n") }

    private mutating func separator() throws {
        try out.write(firstFeature ? "\n" : Self.featureSeparator)
        firstFeature = false
    }

    /// A session's track (nothing without track points); its marks follow, each with `addMark`.
    public mutating func addTrack(_ session: Session, _ track: GeoJSONTrack) throws {
        guard track.points > 0 else { return }
        try separator()
        try writeTrack(session, track)
    }

    /// One mark of `session`.
    public mutating func addMark(_ mark: Entry, of session: Session) throws {
        try separator()
        try out.append { Self.appendMark(mark, of: session, to: &$0) }
    }

    /// One visit of `session`: a Point at the place, `kind: visit`, its arrival, departure (null while still
    /// there), its accuracy in metres, the name the user gave the place and its address (each when it has one).
    public mutating func addVisit(_ visit: Visit, of session: Session) throws {
        try separator()
        try out.append { b in
            Self.appendPointStart(latitude: visit.latitude, longitude: visit.longitude, to: &b)
            JSONText.appendRaw(#""kind":"visit","arrival":"#, to: &b)
            JSONText.appendTime(visit.arrival, to: &b)
            JSONText.appendRaw(#","departure":"#, to: &b)
            if let departure = visit.departure {
                JSONText.appendTime(departure, to: &b)
            } else {
                JSONText.appendRaw("null", to: &b)
            }
            JSONText.appendRaw(#","horizontal_accuracy":"#, to: &b)
            DecimalText.append(visit.horizontalAccuracy, places: Precision.accuracy, to: &b)
            JSONText.appendOptional("name", visit.name, to: &b)
            JSONText.appendOptional("address", visit.address, to: &b)
            JSONText.appendRaw(#","session":"#, to: &b)
            JSONText.appendString(session.id, to: &b)
            JSONText.appendRaw("}}", to: &b)
        }
    }

    /// One region transition of `session`: a Point where it happened, `kind: transition`, the event, the region's
    /// name and id, and the time.
    public mutating func addTransition(_ t: Transition, of session: Session) throws {
        try separator()
        try out.append { b in
            Self.appendPointStart(latitude: t.latitude, longitude: t.longitude, to: &b)
            JSONText.appendRaw(#""kind":"transition","event":"#, to: &b)
            JSONText.appendString(t.event.rawValue, to: &b)
            JSONText.appendRaw(#","region":"#, to: &b)
            JSONText.appendString(t.region.name, to: &b)
            JSONText.appendRaw(#","rid":"#, to: &b)
            // A received transition may name its region without an id.
            if t.region.regionID.isEmpty {
                JSONText.appendRaw("null", to: &b)
            } else {
                JSONText.appendString(t.region.regionID, to: &b)
            }
            JSONText.appendRaw(#","time":"#, to: &b)
            JSONText.appendTime(t.time, to: &b)
            JSONText.appendRaw(#","session":"#, to: &b)
            JSONText.appendString(session.id, to: &b)
            JSONText.appendRaw("}}", to: &b)
        }
    }

    /// A Point feature up to the first of its properties: `{"type":"Feature","geometry":...,"properties":{`.
    static func appendPointStart(latitude: Double, longitude: Double, to b: inout [UInt8]) {
        JSONText.appendRaw(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#, to: &b)
        DecimalText.append(longitude, places: Precision.coordinate, to: &b)
        b.append(UInt8(ascii: ","))
        DecimalText.append(latitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#"]},"properties":{"#, to: &b)
    }

    /// Features set aside as they came (`convert`'s marks), each but the first after `featureSeparator`.
    public mutating func addFeatures(_ features: ScratchFile) throws {
        try separator()
        try features.copy(to: out)
    }

    /// What separates two features.
    public static let featureSeparator = ",\n"

    /// A mark's Feature.
    public static func appendMark(_ mark: Entry, of session: Session, to b: inout [UInt8]) {
        JSONText.appendRaw(#"{"type":"Feature","geometry":{"type":"Point","coordinates":"#, to: &b)
        GeoJSONWriter.appendPosition(mark, to: &b)
        JSONText.appendRaw(#"},"properties":{"kind":"mark","time":"#, to: &b)
        JSONText.appendTime(mark.time, to: &b)
        JSONText.appendOptional("label", mark.label, to: &b)
        JSONText.appendOptional("address", mark.address, to: &b)
        JSONText.appendRaw(#","session":"#, to: &b)
        JSONText.appendString(session.id, to: &b)
        JSONText.appendRaw(#","id":"#, to: &b)
        JSONText.appendString(mark.id, to: &b)
        JSONText.appendRaw("}}", to: &b)
    }

    private func writeTrack(_ session: Session, _ track: GeoJSONTrack) throws {
        let multi = track.segments > 1
        try out.append { b in
            JSONText.appendRaw(#"{"type":"Feature","geometry":{"type":"#, to: &b)
            JSONText.appendRaw(
                multi ? #""MultiLineString","coordinates":[["# : #""LineString","coordinates":["#, to: &b)
        }
        try track.coordinates.copy(to: out)
        try out.append { b in
            JSONText.appendRaw(multi ? "]]}" : "]}", to: &b)
            JSONText.appendRaw(#","properties":{"kind":"track","name":"#, to: &b)
            JSONText.appendString(session.name, to: &b)
            JSONText.appendRaw(#","session":"#, to: &b)
            JSONText.appendString(session.id, to: &b)
            JSONText.appendRaw(#","start":"#, to: &b)
            JSONText.appendTime(session.start, to: &b)
            if let end = session.end {
                JSONText.appendRaw(#","end":"#, to: &b)
                JSONText.appendTime(end, to: &b)
            }
            JSONText.appendOptional("mode", session.mode?.rawValue, to: &b)
            JSONText.appendRaw(multi ? #","coordTimes":[["# : #","coordTimes":["#, to: &b)
        }
        try track.times.copy(to: out)
        try out.write(multi ? "]]" : "]")
        if track.hasAttributes {
            try out.write(multi ? #","coordAttributes":[["# : #","coordAttributes":["#)
            try track.attributes.copy(to: out)
            try out.write(multi ? "]]" : "]")
        }
        try out.write("}}")
    }
}

/// A track's coordinates and times, from one read of the track in time order: a segment break (a time gap) writes
/// "],[", which only a MultiLineString has, and only the count of segments at the end says which geometry it is.
/// The times are set aside in a scratch file because GeoJSON puts them after all the coordinates. The points'
/// attributes (`Entry.attributes`: the keys a phone app sent that gpslog has no field for) go in `coordAttributes`,
/// shaped as `coordTimes`, an object or null per point; only a track with some has them, so the nulls before the
/// first are written when it comes.
public struct GeoJSONTrack {
    let coordinates = ScratchFile()
    let times = ScratchFile()
    let attributes = ScratchFile()
    private(set) var points = 0
    private(set) var segments = 0
    private(set) var hasAttributes = false
    /// The indexes of the points that start a segment after the first: where the nulls written late break.
    private var segmentStarts: [Int] = []
    private var segmenter = TrackSegmenter()

    /// A track with no point yet.
    public init() {}

    /// Adds the next point (in time order).
    public mutating func add(_ e: Entry) throws {
        let newSegment = segmenter.startsSegment(e)
        if points == 0 || newSegment { segments += 1 }
        let separator: StaticString = points == 0 ? "" : newSegment ? "],[" : ","
        try coordinates.append { b in
            JSONText.appendRaw(separator, to: &b)
            GeoJSONWriter.appendPosition(e, to: &b)
        }
        try times.append { b in
            JSONText.appendRaw(separator, to: &b)
            JSONText.appendTime(e.time, to: &b)
        }
        if newSegment && points > 0 { segmentStarts.append(points) }
        if !hasAttributes && e.attributes != nil {
            hasAttributes = true
            try writeNulls()
        }
        if hasAttributes {
            try attributes.append { b in
                JSONText.appendRaw(separator, to: &b)
                Self.appendAttributes(e.attributes, to: &b)
            }
        }
        points += 1
    }

    /// A null for each point before the first with attributes, with the segments' breaks.
    private func writeNulls() throws {
        var next = 0
        var i = 0
        while i < points {
            let end = min(points, i + 4096)
            try attributes.append { b in
                for index in i..<end {
                    if index > 0 {
                        if next < segmentStarts.count && segmentStarts[next] == index {
                            JSONText.appendRaw("],[", to: &b)
                            next += 1
                        } else {
                            JSONText.appendRaw(",", to: &b)
                        }
                    }
                    JSONText.appendRaw("null", to: &b)
                }
            }
            i = end
        }
    }

    /// `{"key":"value",...}` in key order, or null.
    static func appendAttributes(_ attributes: [String: String]?, to b: inout [UInt8]) {
        guard let attributes else {
            JSONText.appendRaw("null", to: &b)
            return
        }
        b.append(UInt8(ascii: "{"))
        for (i, key) in attributes.keys.sorted().enumerated() {
            if i > 0 { b.append(UInt8(ascii: ",")) }
            JSONText.appendString(key, to: &b)
            b.append(UInt8(ascii: ":"))
            JSONText.appendString(attributes[key]!, to: &b)
        }
        b.append(UInt8(ascii: "}"))
    }
}
