// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// What `TCXSAXHandler` does with each event: TCX elements to points, reported to the visitor. Elements are known by
/// their local names (TCX v2's, and Garmin's ActivityExtension `TPX/Speed`); depths count from the root (0).
struct TCXFieldReader: SAXFieldReader {
    let path: String
    unowned(unsafe) var parser: XMLSAXParser?
    var line: Int { parser?.line ?? 0 }
    let window = TimeWindow.current

    private var depth = -1
    private var sawRoot = false
    /// The Activity or Course being read, and its Tracks so far.
    private var activity: TCXActivity?
    private var activityDepth = -1
    private var activities = 0
    private var track = 0

    /// The Trackpoint or CoursePoint being read.
    private var inPoint = false
    private var isCoursePoint = false
    private var pointDepth = -1
    private var current = Entry(id: "", latitude: 0, longitude: 0, time: Timestamp(milliseconds: 0))
    private var hasTime = false
    private var latitude: Double?
    private var longitude: Double?

    private enum Field { case time, latitude, longitude, altitude, speed, courseName, pointName, notes }
    private var text = TextCapture<Field>()

    private var skippedWithoutPosition = 0
    private var dropped = DroppedValues()
    private var outOfRange = OutOfRangeValues()
    private var sentinels = SentinelTimes()

    init(path: String) { self.path = path }

    mutating func startElement(
        _ e: XMLName, namespace _: XMLName, attributes: XMLAttributes, visitor: any TCXVisitor
    ) throws {
        depth += 1
        if depth > XMLDepth.limit { throw XMLDepth.refusal(file: path, line: line) }
        if text.isActive { return }
        if !sawRoot {
            guard e.equals("TrainingCenterDatabase") else {
                throw ImportError.unsupportedFormat(
                    file: path, detail: "not TCX: the root element is <\(e.string.truncated(to: 60))>")
            }
            sawRoot = true
            return
        }
        if inPoint {
            startInPoint(e)
        } else if e.equals("Activity") || e.equals("Course") {
            activities += 1
            activityDepth = depth
            track = -1
            activity = TCXActivity(
                index: activities, name: nil, mode: attributes.string("Sport").flatMap(Self.mode),
                isCourse: e.equals("Course"))
        } else if activity == nil {
            return
        } else if e.equals("Track") {
            track += 1
        } else if e.equals("Trackpoint") || e.equals("CoursePoint") {
            inPoint = true
            isCoursePoint = e.equals("CoursePoint")
            pointDepth = depth
            current = Entry(id: "", latitude: 0, longitude: 0, time: Timestamp(milliseconds: 0))
            hasTime = false
            latitude = nil
            longitude = nil
        } else if e.equals("Name") && depth == activityDepth + 1 {
            text.begin(.courseName, depth: depth, cap: CaptureLimit.bytes(characters: TextLimit.sessionName))
        }
    }

    private mutating func startInPoint(_ e: XMLName) {
        if e.equals("Time") {
            text.begin(.time, depth: depth)
        } else if e.equals("LatitudeDegrees") {
            text.begin(.latitude, depth: depth)
        } else if e.equals("LongitudeDegrees") {
            text.begin(.longitude, depth: depth)
        } else if e.equals("AltitudeMeters") {
            text.begin(.altitude, depth: depth)
        } else if e.equals("Speed") {
            text.begin(.speed, depth: depth)
        } else if e.equals("Name") && isCoursePoint {
            text.begin(.pointName, depth: depth, cap: CaptureLimit.bytes(characters: TextLimit.label))
        } else if e.equals("Notes") && isCoursePoint {
            text.begin(.notes, depth: depth, cap: CaptureLimit.bytes(characters: TextLimit.address))
        } else if e.equals("HeartRateBpm") {
            dropped.count(.heartRate)
        } else if e.equals("Cadence") || e.equals("RunCadence") {
            dropped.count(.cadence)
        } else if e.equals("Watts") {
            dropped.count(.power)
        }
    }

    /// TCX's sports (`Running`, `Biking`, `Other`; some writers add `Walking`) as trip modes.
    private static func mode(_ sport: String) -> TripMode? {
        switch sport.lowercased() {
        case "running": .run
        case "biking", "cycling": .bicycle
        case "walking", "hiking": .walk
        default: nil
        }
    }

    mutating func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        text.append(chunk)
    }

    mutating func endElement(_ e: XMLName, namespace _: XMLName, visitor: any TCXVisitor) throws {
        defer { depth -= 1 }
        if text.isActive {
            if let field = text.end(depth: depth) { try finishField(field) }
            return
        }
        if inPoint && depth == pointDepth {
            inPoint = false
            try finishPoint(visitor: visitor)
        } else if depth == activityDepth {
            activity = nil
            activityDepth = -1
        } else if depth == 0 {
            if skippedWithoutPosition > 0 {
                visitor.note("skipped \(skippedWithoutPosition) Trackpoint(s) without a Position")
            }
            if let note = dropped.note { visitor.note(note) }
            if let note = outOfRange.note { visitor.note(note) }
            if let note = sentinels.note(
                "Time(s)",
                then: "each such point took the time of the point before it (or after it, else the file's "
                    + "modification time)")
            {
                visitor.note(note)
            }
        }
    }

    private func invalid(_ field: String) -> ImportError {
        ImportError.invalidValue(file: path, line: line, field: field, value: text.shown)
    }

    private mutating func finishField(_ field: Field) throws {
        switch field {
        case .time:
            guard !text.overflowed, let t = Timestamp(iso8601Bytes: Array(text.trimmed)) else { throw invalid("Time") }
            // A device's "no time" leaves the point untimed (dated as points without a Time are), counted.
            if sentinels.take(t, window: window, written: text.shown) { return }
            guard window.contains(t) else { throw invalid("Time") }
            current.time = t
            hasTime = true
        case .latitude:
            guard let v = try text.number(or: { invalid("LatitudeDegrees") }), abs(v) <= 90 else {
                throw invalid("LatitudeDegrees")
            }
            latitude = v
        case .longitude:
            guard let v = try text.number(or: { invalid("LongitudeDegrees") }), abs(v) <= 180 else {
                throw invalid("LongitudeDegrees")
            }
            longitude = v
        case .altitude:
            current.altitude = outOfRange.kept(
                try text.number(or: { invalid("AltitudeMeters") }), in: PlausibleValues.altitude,
                field: "AltitudeMeters", text: text.shown, line: line)
        case .speed:
            // Below zero is "unknown" (as in GPX); far above any vehicle's is no measurement.
            current.speed = outOfRange.kept(
                try text.number(or: { invalid("Speed") }).flatMap { $0 >= 0 ? $0 : nil }, in: PlausibleValues.speed,
                field: "Speed", text: text.shown, line: line)
        case .courseName: activity?.name = text.string
        case .pointName: current.label = text.string
        case .notes: current.address = text.string
        }
    }

    private mutating func finishPoint(visitor: any TCXVisitor) throws {
        guard let activity else { return }
        guard let latitude, let longitude else {
            if latitude != nil || longitude != nil {
                throw ImportError.invalidValue(
                    file: path, line: line, field: "Position", value: "a latitude or a longitude alone")
            }
            if !isCoursePoint { skippedWithoutPosition += 1 }
            return
        }
        // Exactly 0, 0 is a device's "no fix yet", not a place.
        guard Geo.isPlausiblePosition(latitude: latitude, longitude: longitude) else { return }
        current.latitude = latitude
        current.longitude = longitude
        if isCoursePoint {
            try visitor.mark(&current, hasTime: hasTime, activity: activity)
        } else {
            current.label = nil
            current.address = nil
            try visitor.trackPoint(&current, hasTime: hasTime, activity: activity, track: max(track, 0))
        }
    }
}
