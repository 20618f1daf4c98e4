// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// What `GPXReader`'s `SAXReaderHandler` does with each event: GPX elements to points and fields, reported to the
/// visitor. Depths count from the root element (0).
///
/// The visitor comes with each event rather than being stored here: read out of this struct (behind a pointer that
/// the call into the visitor could write through) it would be retained and released around every call; passed
/// down from the handler's `let`, it is borrowed.
struct GPXFieldReader: SAXFieldReader {
    let path: String
    unowned(unsafe) var parser: XMLSAXParser?

    private var depth = -1
    private var sawRoot = false
    var metadataName: String?
    var metadataTime: Timestamp?

    /// The trk or rte being read.
    private var inTrack = false
    private var trackDepth = 0
    private var isRoute = false
    var header = GPXTrackHeader()
    /// Track points of the current track passed on so far, and whether a trkseg opened after some: its first point
    /// starts a segment (`Entry.startsSegment`), so a track keeps its segments through an import.
    private var trackPointsPassed = 0
    private var segmentOpened = false

    /// The wpt, trkpt or rtept being read.
    // Not an optional `Entry`: taking the entry out of an optional copies it once more per point.
    private var inPoint = false
    var current = Entry(id: "", latitude: 0, longitude: 0, time: Timestamp(milliseconds: 0))
    var currentHasTime = false
    /// A wpt's `type` when it names a region transition (`enter`, `leave`: gpslog's GPX export of transitions).
    var currentEvent: RegionEvent?
    private var pointDepth = 0
    private var pointIsMark = false

    /// The element whose text is being collected.
    enum Field {
        case metaName(always: Bool)
        case metaTime(always: Bool)
        case trackName, trackType, trackSource
        case ele, time, name, desc, sat, hdop, vdop, pdop, fix, speed, course, heading, pointType
    }
    private var capturing: Field?
    private var captureDepth = 0
    var text: [UInt8] = []
    /// The most bytes kept of the field's text: a hostile 200 MB `<name>` costs no more than a real one.
    private var textCap = 0
    /// The field's text was longer than `textCap` (a number or time that long is refused; a text is cut).
    var textOverflowed = false

    init(path: String) {
        self.path = path
        text.reserveCapacity(256)
    }

    var line: Int { parser?.line ?? 0 }
    /// The times a point may carry (read once: the system clock does not move enough during one file to matter).
    let window = TimeWindow.current
    /// The root's namespace (GPX 1.0's or 1.1's, or what a file in the wild has instead), and the values read in
    /// points that gpslog has no column for.
    private var document = GPXDocumentNotes()
    /// Point times that stand for "no time", read as none.
    var sentinels = SentinelTimes()

    private mutating func capture(_ field: Field) {
        capturing = field
        captureDepth = depth
        text.removeAll(keepingCapacity: true)
        textOverflowed = false
        textCap = Self.byteCap(field)
    }

    /// Bytes kept of each field: a text's limit in characters at up to 4 UTF-8 bytes each, plus one character so
    /// the store's `truncated(to:)` still sees it is too long and marks the cut; 64 bytes for a number or time.
    private static func byteCap(_ field: Field) -> Int {
        let characters: Int
        switch field {
        case .metaName, .trackName: characters = TextLimit.sessionName
        case .name: characters = TextLimit.label
        case .desc: characters = TextLimit.address
        case .trackType, .trackSource: characters = TextLimit.deviceID
        case .metaTime, .ele, .time, .sat, .hdop, .vdop, .pdop, .fix, .speed, .course, .heading, .pointType:
            return 64
        }
        return (characters + 1) * 4
    }

    mutating func startElement(
        _ element: XMLName, namespace: XMLName, attributes: XMLAttributes, visitor: any GPXVisitor
    ) throws {
        depth += 1
        if capturing != nil { return }  // nested in an element whose text is read whole
        if !sawRoot {
            try document.acceptRoot(element, namespace: namespace, file: path, visitor: visitor)
            sawRoot = true
            return
        }
        if inPoint {
            if element.equals("ele") {
                capture(.ele)
            } else if element.equals("time") {
                capture(.time)
            } else if element.equals("name") && depth == pointDepth + 1 {
                capture(.name)
            } else if element.equals("desc") && depth == pointDepth + 1 {
                capture(.desc)
            } else if element.equals("type") && depth == pointDepth + 1 && pointIsMark {
                capture(.pointType)
            } else if element.equals("sat") {
                capture(.sat)
            } else if element.equals("hdop") {
                capture(.hdop)
            } else if element.equals("vdop") {
                capture(.vdop)
            } else if element.equals("pdop") {
                capture(.pdop)
            } else if element.equals("fix") {
                capture(.fix)
            } else if element.equals("speed") {
                capture(.speed)
            } else if element.equals("course") {
                capture(.course)
            } else if element.equals("heading") {
                capture(.heading)  // OsmAnd's extension: the direction of travel
            } else {
                document.countDropped(element)
            }
            return
        }
        if inTrack {
            let child = depth == trackDepth + 1
            if child && element.equals("name") {
                capture(.trackName)
            } else if child && element.equals("type") {
                capture(.trackType)
            } else if child && element.equals("src") {
                capture(.trackSource)
            } else if child && !isRoute && element.equals("trkseg") {
                segmentOpened = trackPointsPassed > 0
            } else if element.equals(isRoute ? "rtept" : "trkpt") {
                try startPoint(attributes, mark: false)
            }
            return
        }
        guard document.isGPX(namespace) else { return }
        if element.equals("name") && depth <= 2 {
            if depth == 1 || metadataName == nil { capture(.metaName(always: depth == 1)) }
        } else if element.equals("time") && depth <= 2 {
            if depth == 1 || metadataTime == nil { capture(.metaTime(always: depth == 1)) }
        } else if element.equals("wpt") && depth == 1 {
            try startPoint(attributes, mark: true)
        } else if (element.equals("trk") || element.equals("rte")) && depth == 1 {
            inTrack = true
            trackDepth = depth
            isRoute = element.equals("rte")
            header = GPXTrackHeader()
            trackPointsPassed = 0
            segmentOpened = false
            try visitor.beginTrack(isRoute: isRoute)
        }
    }

    mutating func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard let field = capturing, !textOverflowed else { return }
        var chunk = chunk[...]
        // Leading white space of a trimmed field is dropped as it comes, so padding cannot push the text out.
        if text.isEmpty && Self.isTrimmed(field) {
            guard let first = chunk.firstIndex(where: { !ByteNumber.isSpace($0) }) else { return }
            chunk = chunk[first...]
        }
        let room = textCap - text.count
        if chunk.count <= room {
            text.append(contentsOf: chunk)
        } else {
            text.append(contentsOf: chunk.prefix(room))
            // Trailing white space past the cap is not more text.
            textOverflowed = chunk.dropFirst(room).contains { !ByteNumber.isSpace($0) }
        }
    }

    /// Fields whose text is used trimmed (all but a waypoint's name and description, kept as written).
    private static func isTrimmed(_ field: Field) -> Bool {
        switch field {
        case .name, .desc: return false
        default: return true
        }
    }

    mutating func endElement(_ element: XMLName, namespace: XMLName, visitor: any GPXVisitor) throws {
        defer { depth -= 1 }
        if let field = capturing {
            if depth == captureDepth {
                capturing = nil
                try finishField(field, visitor: visitor)
            }
            return
        }
        if inPoint && depth == pointDepth {
            try finishPoint(visitor: visitor)
        } else if inTrack && depth == trackDepth {
            inTrack = false
            try visitor.endTrack()
        } else if depth == 0 {
            document.reportDropped(to: visitor)
            if let note = sentinels.note(
                "point time(s)",
                then: "each such point took the time of the timed point before it (or after it), else the file's "
                    + "metadata time, else its modification time")
            {
                visitor.note(note)
            }
        }
    }

    // MARK: - Points

    private mutating func startPoint(_ attributes: XMLAttributes, mark: Bool) throws {
        let latBytes = attributes.value("lat")
        let lonBytes = attributes.value("lon")
        guard let lat = latBytes.flatMap(ByteNumber.double), abs(lat) <= 90 else {
            throw ImportError.invalidValue(
                file: path, line: line, field: "latitude", value: latBytes.map(ByteNumber.text) ?? "")
        }
        guard let lon = lonBytes.flatMap(ByteNumber.double), abs(lon) <= 180 else {
            throw ImportError.invalidValue(
                file: path, line: line, field: "longitude", value: lonBytes.map(ByteNumber.text) ?? "")
        }
        current = Entry(id: "", latitude: lat, longitude: lon, time: Timestamp(milliseconds: 0))
        currentHasTime = false
        currentEvent = nil
        inPoint = true
        pointDepth = depth
        pointIsMark = mark
    }

    private mutating func finishPoint(visitor: any GPXVisitor) throws {
        guard inPoint else { return }
        inPoint = false
        // Exactly 0, 0 is a logger's "no fix yet", not a place (`Geo.isPlausiblePosition`): such points are skipped.
        guard Geo.isPlausiblePosition(latitude: current.latitude, longitude: current.longitude) else { return }
        if pointIsMark {
            current.label = current.label.flatMap { $0.isEmpty ? nil : $0 }
            if let event = currentEvent {
                try visitor.transition(&current, event: event, hasTime: currentHasTime)
            } else {
                try visitor.waypoint(&current, hasTime: currentHasTime)
            }
        } else {
            current.label = nil  // a track point's name is not a mark's label (labels are for marks only)
            current.startsSegment = segmentOpened
            segmentOpened = false
            trackPointsPassed += 1
            try visitor.trackPoint(&current, hasTime: currentHasTime)
        }
    }
}
