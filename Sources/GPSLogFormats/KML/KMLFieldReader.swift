// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// What `KMLSAXHandler` does with each event: KML elements to tracks, points and marks, reported to the visitor
/// (what becomes what: `KMLReader`). Depths count from the root element (0). The visitor comes with each event, as
/// in `GPXFieldReader`.
struct KMLFieldReader: SAXFieldReader {
    let path: String
    unowned(unsafe) var parser: XMLSAXParser?
    var line: Int { parser?.line ?? 0 }
    /// The times a point may carry.
    let window = TimeWindow.current

    private var depth = -1
    private var sawRoot = false

    /// A Document or Folder (the root is one too), and what GPSBabel's layout says of it.
    struct Container {
        enum Role: Equatable {
            case plain, waypoints, routes
            /// GPSBabel's `Points` folder of a track: its Point placemarks are the track, named after `track`.
            case points(track: String?, isRoute: Bool)
            /// GPSBabel's `Points` folder of a track it wrote before, found at its first point (`-o kml,track=1`
            /// writes a timed track as a `gx:Track`, then every track's folder again): skipped.
            case drawnAgain
        }
        var depth: Int
        var id: Int
        var name: String?
        var role = Role.plain
        /// A placemark with a line was read in it (the Point placemarks after it are its marks).
        var holdsLine = false
        /// It holds GPSBabel's `Points` folder (its `Path` line draws the same points).
        var holdsPoints = false
        /// For GPSBabel's `Points`: its first point was read.
        var started = false
        /// The tracks read in it (`gx:Track` placemarks, GPSBabel's track folders), by name and first point, up to
        /// 10,000: a track folder of GPSBabel's that starts as one of them is the same track again.
        var trackStarts: Set<String> = []

        static func start(_ name: String?, _ latitude: Double, _ longitude: Double) -> String {
            "\(name ?? "")|\(latitude)|\(longitude)"
        }

        /// Remembers a track's start; false when it was read before.
        mutating func remember(_ start: String) -> Bool {
            guard !trackStarts.contains(start) else { return false }
            if trackStarts.count < 10_000 { trackStarts.insert(start) }
            return true
        }
    }
    var containers: [Container] = []
    private var containersOpened = 0

    /// The placemark being read, and where in it.
    var placemark = KMLPlacemark(index: 0)
    private var placemarksOpened = 0
    private var placemarkDepth = -1
    private var inPlacemark: Bool { placemarkDepth >= 0 }
    /// Inside a Polygon (its rings are not tracks), or an element that holds no geometry of the placemark's.
    private var ignoredDepth = -1
    /// The geometry whose `<coordinates>` are read: a Point's or a LineString's.
    private enum Shape { case point, line }
    private var shape: Shape?
    private var shapeDepth = -1
    private var gxTrackDepth = -1
    /// The geometry's `altitudeMode` is explicit (absolute or relative): a third coordinate of 0 is then an altitude.
    private var altitudeExplicit = false

    /// Points waiting: a placemark's Points and LineStrings until its end, a `gx:Track`'s times or coordinates until
    /// their partners come.
    let points = KMLPointQueue()
    let linePoints = KMLPointQueue()
    let pairs = KMLPointQueue()
    /// Which side `pairs` holds: times (true) or coordinates.
    var pairsHoldTimes = true
    var scanner = KMLCoordinateScanner()
    private var inCoordinates = false

    /// The element whose text is being collected.
    enum Field {
        case containerName, name, description, when, begin, end, trackWhen, trackCoord, altitudeMode, data
    }
    var text = TextCapture<Field>()
    /// The name of the `ExtendedData` value being read (`Data`'s or `SimpleData`'s `name`).
    var dataName: [UInt8] = []
    /// An error met in text, thrown at the next element event (the parser's text callback cannot throw).
    private var pending: ImportError?

    /// Counts for notes at the end: placemarks skipped, values dropped.
    var skippedPolygons = 0
    var skippedLinks = 0
    var dropped = DroppedValues()
    /// Times that stand for "no time", read as none.
    var sentinels = SentinelTimes()
    /// Polygons beside a line or points in a MultiGeometry, skipped.
    var skippedPolygonParts = 0
    /// Points of MultiGeometry placemarks that also have a line, imported as marks.
    var pointsBesideLines = 0

    init(path: String) { self.path = path }

    // MARK: - Events

    mutating func startElement(
        _ element: XMLName, namespace _: XMLName, attributes: XMLAttributes, visitor: any KMLVisitor
    ) throws {
        depth += 1
        if let pending { throw pending }
        if depth > XMLDepth.limit { throw XMLDepth.refusal(file: path, line: line) }
        if text.isActive || inCoordinates { return }  // nested in an element whose text is read whole
        if !sawRoot {
            guard element.equals("kml") else {
                throw ImportError.unsupportedFormat(
                    file: path, detail: "not KML: the root element is <\(element.string.truncated(to: 60))>")
            }
            sawRoot = true
            openContainer()
            return
        }
        if ignoredDepth >= 0 {
            if element.equals("SimpleArrayData") || element.equals("value") { countArray(element, attributes) }
            return
        }
        if inPlacemark {
            try startInPlacemark(element, attributes: attributes, visitor: visitor)
        } else if element.equals("Placemark") {
            placemarkDepth = depth
            placemarksOpened += 1
            placemark = KMLPlacemark(index: placemarksOpened)
        } else if element.equals("Folder") || element.equals("Document") {
            openContainer()
        } else if element.equals("name") && depth == containers.last!.depth + 1 {
            text.begin(.containerName, depth: depth, cap: CaptureLimit.bytes(characters: TextLimit.sessionName))
        } else if element.equals("NetworkLink") {
            skippedLinks += 1
            ignoredDepth = depth
        } else if isIgnoredOutside(element) {
            ignoredDepth = depth
        }
    }

    /// Elements outside placemarks whose insides are no placemark's: styles, views, overlays, schemas.
    private func isIgnoredOutside(_ e: XMLName) -> Bool {
        e.equals("Style") || e.equals("StyleMap") || e.equals("LookAt") || e.equals("Camera")
            || e.equals("GroundOverlay") || e.equals("ScreenOverlay") || e.equals("PhotoOverlay")
            || e.equals("Schema") || e.equals("Region") || e.equals("ExtendedData")
    }

    private mutating func startInPlacemark(_ e: XMLName, attributes: XMLAttributes, visitor: any KMLVisitor) throws {
        let child = depth == placemarkDepth + 1
        if e.equals("when") {
            if gxTrackDepth >= 0 {
                text.begin(.trackWhen, depth: depth)
            } else if placemark.timeDepth == depth - 1 {
                text.begin(.when, depth: depth)
            }
        } else if e.equals("coord") && gxTrackDepth >= 0 {
            text.begin(.trackCoord, depth: depth, cap: 128)
        } else if e.equals("coordinates") && shape != nil && depth == shapeDepth + 1 {
            inCoordinates = true
            scanner.reset()
        } else if e.equals("LineString") || e.equals("Point") {
            shape = e.equals("Point") ? .point : .line
            shapeDepth = depth
            altitudeExplicit = false
            if shape == .line {
                placemark.parts += 1
                placemark.partPoints = 0
            }
        } else if e.equals("Track") {
            gxTrackDepth = depth
            altitudeExplicit = false
            placemark.parts += 1
            placemark.partPoints = 0
            pairs.removeAll()
            try openLine(visitor: visitor)
        } else if e.equals("altitudeMode") {
            text.begin(.altitudeMode, depth: depth)
        } else if child && e.equals("name") {
            text.begin(.name, depth: depth, cap: CaptureLimit.bytes(characters: TextLimit.label))
        } else if child && e.equals("description") {
            text.begin(.description, depth: depth, cap: CaptureLimit.bytes(characters: TextLimit.address))
        } else if child && (e.equals("TimeStamp") || e.equals("TimeSpan")) {
            placemark.timeDepth = depth
        } else if (e.equals("begin") || e.equals("end")) && placemark.timeDepth == depth - 1 {
            text.begin(e.equals("begin") ? .begin : .end, depth: depth)
        } else if e.equals("Data") || e.equals("SimpleData") {
            dataName = attributes.value("name").map(Array.init) ?? []
            if e.equals("SimpleData") { text.begin(.data, depth: depth, cap: 128) }
        } else if e.equals("value") && !dataName.isEmpty {
            text.begin(.data, depth: depth, cap: 128)
        } else if e.equals("Polygon") || e.equals("Model") || e.equals("LookAt") || e.equals("Camera")
            || e.equals("Style") || e.equals("StyleMap") || e.equals("Region")
        {
            if e.equals("Polygon") { placemark.polygons += 1 }
            ignoredDepth = depth
        } else if e.equals("SimpleArrayData") {
            ignoredDepth = depth
            countArray(e, attributes)
        }
    }

    mutating func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard pending == nil else { return }
        if inCoordinates {
            var i = 0
            while scanner.next(chunk, from: &i) {
                do {
                    try addCoordinates(scanner.tuple[...])
                } catch {
                    pending = error as? ImportError
                    return
                }
                scanner.clear()
            }
            return
        }
        text.append(chunk)
    }

    mutating func endElement(_ element: XMLName, namespace _: XMLName, visitor: any KMLVisitor) throws {
        defer { depth -= 1 }
        if let pending { throw pending }
        if text.isActive {
            if let field = text.end(depth: depth) { try finishField(field, visitor: visitor) }
            return
        }
        if inCoordinates {
            guard depth == shapeDepth + 1 else { return }  // an element inside the text (not KML's) ends
            inCoordinates = false
            if scanner.overflowed { throw invalid("coordinates", text: "(a tuple over 128 bytes)") }
            if !scanner.tuple.isEmpty { try addCoordinates(scanner.tuple[...]) }
            return
        }
        if depth == ignoredDepth {
            ignoredDepth = -1
            dropped.begin(nil)
        } else if ignoredDepth >= 0 {
            return
        } else if depth == shapeDepth {
            shape = nil
            shapeDepth = -1
        } else if depth == gxTrackDepth {
            gxTrackDepth = -1
            try finishTrackPairs()
        } else if depth == placemark.timeDepth {
            placemark.timeDepth = -1
        } else if depth == placemarkDepth {
            placemarkDepth = -1
            try finishPlacemark(visitor: visitor)
        } else if !inPlacemark, let last = containers.last, depth == last.depth {
            containers.removeLast()
            if containers.isEmpty { reportNotes(to: visitor) }
        } else if element.equals("Data") || element.equals("SimpleData") {
            dataName.removeAll(keepingCapacity: true)
        }
    }

    private mutating func openContainer() {
        containersOpened += 1
        containers.append(Container(depth: depth, id: containersOpened))
    }

    /// A container's `<name>`: GPSBabel's folder names say what its placemarks are.
    private mutating func nameContainer(_ name: String) {
        let i = containers.count - 1
        containers[i].name = name
        guard i > 0 else { return }
        switch name {
        case "Waypoints": containers[i].role = .waypoints
        case "Routes": containers[i].role = .routes
        case "Points":
            containers[i].role = .points(track: containers[i - 1].name, isRoute: isInRoutes)
            containers[i - 1].holdsPoints = true
        default: break
        }
    }

    /// In GPSBabel's `Routes` folder.
    var isInRoutes: Bool { containers.contains { $0.role == .routes } }

    private mutating func countArray(_ element: XMLName, _ attributes: XMLAttributes) {
        if element.equals("SimpleArrayData") {
            dropped.begin(attributes.value("name"))
        } else {
            dropped.countValue()
        }
    }

    // MARK: - Fields

    /// The refusal of a value of the placemark being read (named when it has a name).
    func invalid(_ field: String, text value: String) -> ImportError {
        let name = placemark.name.map { " of placemark '\($0.truncated(to: 60))'" } ?? ""
        return ImportError.invalidValue(file: path, line: line, field: field + name, value: value)
    }

    func invalid(_ field: String) -> ImportError { invalid(field, text: text.shown) }

    /// A time of the collected text, in 1980 ... tomorrow, else the refusal; nil, counted, for a device's "no time"
    /// (`SentinelTimes`: its points are untimed).
    mutating func time(_ field: String) throws -> Timestamp? {
        guard !text.overflowed, let t = KMLValues.time(text.bytes) else { throw invalid(field) }
        if sentinels.take(t, window: window, written: text.shown) { return nil }
        guard window.contains(t) else { throw invalid(field) }
        return t
    }

    private mutating func finishField(_ field: Field, visitor: any KMLVisitor) throws {
        switch field {
        case .containerName: if let name = text.string { nameContainer(name) }
        case .name: placemark.name = text.string
        case .description: placemark.description = text.string
        case .when: placemark.stamp = try time("when")
        case .begin: placemark.begin = try time("begin")
        case .end: placemark.end = try time("end")
        case .altitudeMode:
            let mode = text.string ?? ""
            altitudeExplicit = mode == "absolute" || mode == "relativeToGround" || mode == "relativeToSeaFloor"
        case .data:
            try placemark.data.read(name: dataName, value: text.trimmed, reader: self)
            if let sentinel = placemark.data.sentinel {
                placemark.data.sentinel = nil
                _ = sentinels.take(sentinel, window: window, written: text.shown)
            }
        case .trackWhen: try addTrackTime(try time("when"), visitor: visitor)
        case .trackCoord:
            guard !text.overflowed, let p = KMLValues.position(text.trimmed, spaces: true) else {
                throw invalid("gx:coord")
            }
            try addTrackPosition(p, visitor: visitor)
        }
    }

    /// A tuple of `<coordinates>`, into the placemark's Points or its line.
    private mutating func addCoordinates(_ tuple: ArraySlice<UInt8>) throws {
        guard let p = KMLValues.position(tuple, spaces: false) else {
            throw invalid("coordinates", text: String(decoding: tuple, as: UTF8.self))
        }
        let alt = altitude(p.alt)
        if shape == .point {
            try points.append(KMLQueuedPoint(longitude: p.lon, latitude: p.lat, altitude: alt))
        } else {
            let startsPart = placemark.parts > 1 && placemark.partPoints == 0
            placemark.partPoints += 1
            try linePoints.append(KMLQueuedPoint(longitude: p.lon, latitude: p.lat, altitude: alt, flag: startsPart))
        }
    }

    /// A third coordinate as an altitude: without an explicit `altitudeMode` (clamped to the ground), 0 is what
    /// GDAL and libkml write for none.
    func altitude(_ value: Double?) -> Double? {
        guard let value else { return nil }
        return value == 0 && !altitudeExplicit ? nil : value
    }
}
