// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// What a placemark said, collected until its end (its points wait in the reader's queues).
struct KMLPlacemark {
    /// Its place in the file (its line's key).
    let index: Int
    var name: String?
    var description: String?
    /// Its TimeStamp, or its TimeSpan's ends; `timeDepth` while inside one of them.
    var stamp: Timestamp?
    var begin: Timestamp?
    var end: Timestamp?
    var timeDepth = -1
    var data = KMLData()
    /// LineStrings and `gx:Track`s read so far, and the points of the last one.
    var parts = 0
    var partPoints = 0
    var polygons = 0
    /// Its line was begun with the visitor, or skipped (GPSBabel's `Path`).
    var lineOpened = false
    var lineSkipped = false

    init(index: Int) { self.index = index }
}

extension KMLFieldReader {
    /// Begins the placemark's line with the visitor, once; GPSBabel's `Path` beside its `Points` is skipped.
    mutating func openLine(visitor: any KMLVisitor) throws {
        guard !placemark.lineOpened else { return }
        placemark.lineOpened = true
        let i = containers.count - 1
        containers[i].holdsLine = true
        let isPath = placemark.name == "Path"
        if isPath && containers[i].holdsPoints {
            placemark.lineSkipped = true
            return
        }
        try visitor.beginLine(
            KMLTrack(
                key: "placemark \(placemark.index)", name: isPath ? containers[i].name : placemark.name,
                isRoute: isInRoutes))
    }

    // MARK: - gx:Track

    /// A `when` of a `gx:Track` (nil: a device's "no time"): paired with the first coordinate waiting, else waits
    /// for one.
    mutating func addTrackTime(_ time: Timestamp?, visitor: any KMLVisitor) throws {
        if !pairsHoldTimes, let p = try pairs.removeFirst() {
            try emitTrackPoint(lon: p.longitude, lat: p.latitude, alt: p.altitude, time: time, visitor: visitor)
            return
        }
        pairsHoldTimes = true
        try pairs.append(KMLQueuedPoint(time: time?.milliseconds ?? Self.noTime))
    }

    /// A queued `when` that stood for no time.
    private static let noTime = Int64.min

    /// A `gx:coord`: paired with the first time waiting, else waits for one.
    mutating func addTrackPosition(_ p: (lon: Double, lat: Double, alt: Double?), visitor: any KMLVisitor) throws {
        let alt = altitude(p.alt) ?? .nan
        if pairsHoldTimes, let t = try pairs.removeFirst() {
            let time = t.time == Self.noTime ? nil : Timestamp(milliseconds: t.time)
            try emitTrackPoint(lon: p.lon, lat: p.lat, alt: alt, time: time, visitor: visitor)
            return
        }
        pairsHoldTimes = false
        try pairs.append(KMLQueuedPoint(longitude: p.lon, latitude: p.lat, altitude: alt))
    }

    private mutating func emitTrackPoint(
        lon: Double, lat: Double, alt: Double, time: Timestamp?, visitor: any KMLVisitor
    ) throws {
        if placemark.parts == 1 && placemark.partPoints == 0 {
            _ = containers[containers.count - 1].remember(Container.start(placemark.name, lat, lon))
        }
        let startsPart = placemark.parts > 1 && placemark.partPoints == 0
        placemark.partPoints += 1
        guard !placemark.lineSkipped else { return }
        var e = Entry(id: "", latitude: lat, longitude: lon, time: time ?? Timestamp(milliseconds: 0))
        e.altitude = alt.isNaN ? nil : alt
        try visitor.linePoint(&e, hasTime: time != nil, startsPart: startsPart)
    }

    /// The end of a `gx:Track`: KML pairs its `when`s and `gx:coord`s one to one, so any left over is an error.
    mutating func finishTrackPairs() throws {
        guard !pairs.isEmpty else { return }
        let name = placemark.name.map { " of placemark '\($0.truncated(to: 60).visible)'" } ?? ""
        let (more, fewer) = pairsHoldTimes ? ("<when>", "<gx:coord>") : ("<gx:coord>", "<when>")
        throw ImportError.malformed(
            file: path, line: line,
            reason: "the gx:Track\(name) has \(pairs.count) more \(more) than \(fewer) (they pair one to one)")
    }

    // MARK: - The placemark's end

    mutating func finishPlacemark(visitor: any KMLVisitor) throws {
        defer {
            points.removeAll()
            linePoints.removeAll()
        }
        if !linePoints.isEmpty {
            try openLine(visitor: visitor)
            if !placemark.lineSkipped { try emitLine(visitor: visitor) }
        }
        if placemark.lineOpened {
            // A MultiGeometry's Points beside its line (or gx:Track, handed on as it was read) are its marks, as
            // the Point placemarks after a line in its folder are; its Polygons are counted for a note.
            if !placemark.lineSkipped { try emitMarksBesideLine(visitor: visitor) }
            skippedPolygonParts += placemark.polygons
        } else if !points.isEmpty {
            try emitPoints(visitor: visitor)
            skippedPolygonParts += placemark.polygons
        } else if placemark.polygons > 0 {
            skippedPolygons += 1
        }
    }

    /// The Points of a MultiGeometry whose line was read: marks at the placemark's time, named after it.
    private mutating func emitMarksBesideLine(visitor: any KMLVisitor) throws {
        let time = placemark.stamp ?? placemark.begin ?? placemark.end ?? placemark.data.time
        while let q = try points.removeFirst() {
            var e = Entry(
                id: "", latitude: q.latitude, longitude: q.longitude, time: time ?? Timestamp(milliseconds: 0))
            e.altitude = q.altitude.isNaN ? nil : q.altitude
            e.label = placemark.name
            e.address = placemark.description
            pointsBesideLines += 1
            try visitor.mark(&e, hasTime: time != nil)
        }
    }

    /// The LineStrings' points: spaced evenly over the TimeSpan, at the TimeStamp (or the span's one end), or
    /// untimed.
    private mutating func emitLine(visitor: any KMLVisitor) throws {
        let n = linePoints.count
        var span: (begin: Timestamp, milliseconds: Double)?
        if let b = placemark.begin, let e = placemark.end {
            guard e >= b else { throw invalid("TimeSpan", text: "\(b.iso8601()) to \(e.iso8601())") }
            span = (b, Double(e.milliseconds - b.milliseconds))
        }
        let time = placemark.stamp ?? placemark.begin ?? placemark.end
        var i = 0
        while let q = try linePoints.removeFirst() {
            var e = Entry(
                id: "", latitude: q.latitude, longitude: q.longitude, time: time ?? Timestamp(milliseconds: 0))
            if let span, n > 1 {
                let offset = (span.milliseconds * Double(i) / Double(n - 1)).rounded()
                e.time = Timestamp(milliseconds: span.begin.milliseconds + Int64(offset))
            }
            e.altitude = q.altitude.isNaN ? nil : q.altitude
            try visitor.linePoint(&e, hasTime: time != nil, startsPart: q.flag != 0)
            i += 1
        }
    }

    /// Point placemarks: a track's points, or marks (see `KMLReader`).
    private mutating func emitPoints(visitor: any KMLVisitor) throws {
        let i = containers.count - 1
        var next = try points.removeFirst()
        if case .points(let name, _) = containers[i].role, !containers[i].started, i >= 2, let first = next {
            containers[i].started = true
            if !containers[i - 2].remember(Container.start(name, first.latitude, first.longitude)) {
                containers[i].role = .drawnAgain
            }
        }
        let c = containers[i]
        guard c.role != .drawnAgain else { return }
        let data = placemark.data
        let time = placemark.stamp ?? placemark.begin ?? placemark.end ?? data.time
        var track: KMLTrack?
        if case .points(let name, let isRoute) = c.role {
            track = KMLTrack(key: "folder \(c.id)", name: name, isRoute: isRoute)
        } else if c.role != .waypoints && !c.holdsLine && (time != nil || data.track != nil) {
            track = KMLTrack(key: "folder \(c.id) track \(data.track ?? "")", segment: data.segment)
        }
        while let q = next {
            var e = Entry(
                id: "", latitude: q.latitude, longitude: q.longitude, time: time ?? Timestamp(milliseconds: 0))
            e.altitude = q.altitude.isNaN ? data.altitude : q.altitude
            if let track {
                e.speed = data.speed
                e.course = data.course
                try visitor.trackPoint(&e, hasTime: time != nil, track: track)
            } else {
                e.label = placemark.name
                e.address = placemark.description
                if let event = data.event {
                    try visitor.transition(&e, event: event, hasTime: time != nil)
                } else {
                    try visitor.mark(&e, hasTime: time != nil)
                }
            }
            next = try points.removeFirst()
        }
    }

    /// At the end of the document: what was skipped or dropped, one note each.
    func reportNotes(to visitor: any KMLVisitor) {
        if skippedPolygons > 0 {
            visitor.note("skipped \(skippedPolygons) Polygon placemark(s): areas are not tracks")
        }
        if skippedLinks > 0 {
            visitor.note("skipped \(skippedLinks) NetworkLink(s): gpslog reads only the file it is given")
        }
        if skippedPolygonParts > 0 {
            visitor.note(
                "skipped \(skippedPolygonParts) Polygon(s) of MultiGeometry placemarks that also have points or lines: "
                    + "areas are not tracks")
        }
        if pointsBesideLines > 0 {
            visitor.note(
                "imported \(pointsBesideLines) Point(s) of MultiGeometry placemarks that also have a line as marks")
        }
        if let note = dropped.note { visitor.note(note) }
        if let note = sentinels.note(
            "time(s)", then: "their points are dated as points without a time are")
        {
            visitor.note(note)
        }
    }
}

/// What a Point placemark's `ExtendedData` says that gpslog keeps (GDAL's KML of a GPX's `track_points`): `time` or
/// `timestamp` (ISO 8601, GDAL's `2010/10/03 09:36:30+00` or Unix seconds), `track_fid` and `track_seg_id`, `ele`
/// (`altitude`, `elevation`), `speed` (m/s) and `course` (`bearing`); gpslog's `event` (enter, leave) of a
/// transition. An empty value is none; one that is not valid is refused with its name.
struct KMLData {
    var time: Timestamp?
    var track: String?
    var segment: String?
    var altitude: Double?
    var speed: Double?
    var course: Double?
    var event: RegionEvent?
    /// A `time` that stood for "no time" (`SentinelTimes`), for the reader to count.
    var sentinel: Timestamp?

    mutating func read(name: [UInt8], value: ArraySlice<UInt8>, reader: KMLFieldReader) throws {
        guard !value.isEmpty else { return }
        func named(_ s: StaticString) -> Bool {
            name.count == s.utf8CodeUnitCount && memcmp(name, s.utf8Start, name.count) == 0
        }
        func refused() -> ImportError {
            reader.invalid(
                "ExtendedData '\(String(decoding: name, as: UTF8.self))'",
                text: reader.text.shown)
        }
        func number() throws -> Double {
            guard !reader.text.overflowed, let v = ByteNumber.double(value) else { throw refused() }
            return v
        }
        if named("time") || named("timestamp") {
            guard case .time(let t) = CSVTime.parse(value, date: nil, unit: .seconds, decimalComma: false) else {
                throw refused()
            }
            if SentinelTimes.isSentinel(t, window: reader.window) {
                sentinel = t
                return
            }
            guard reader.window.contains(t) else { throw refused() }
            time = t
        } else if named("track_fid") {
            track = String(decoding: value, as: UTF8.self)
        } else if named("track_seg_id") {
            segment = String(decoding: value, as: UTF8.self)
        } else if named("ele") || named("altitude") || named("elevation") {
            altitude = try number()
        } else if named("speed") {
            let v = try number()
            speed = v >= 0 ? v : nil
        } else if named("event") {
            // Another writer's `event` field (not enter or leave) is not a transition: the placemark stays a mark.
            event = RegionEvent(rawValue: String(decoding: value, as: UTF8.self))
        } else if named("course") || named("bearing") {
            course = try Geo.normalizedDegrees(number())
        }
    }
}
