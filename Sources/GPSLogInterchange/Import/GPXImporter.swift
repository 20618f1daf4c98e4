// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogXML

/// Imports GPX 1.0 and 1.1 (streamed with libxml2's reader; no DTDs, no entities, no network): each `trk` or `rte`
/// becomes a session, `wpt`s become marks of the first one (name as label, desc as address). Speed and course come
/// from GPX 1.0's elements or Garmin's TrackPointExtension v1/v2. One transaction per file.
///
/// Points without a time (planned routes, some hand-edited tracks) take the time of the timed point before them,
/// or after them at the start of a track; a file with no time at all takes its metadata time, else the file's
/// modification time. The import reports how many points it dated this way.
public struct GPXImporter {
    static let namespaces = ["http://www.topografix.com/GPX/1/1", "http://www.topografix.com/GPX/1/0"]

    /// Session name for every track (default: the track's name, else the file's).
    public var name: String?

    public init() {}

    /// A point as read, before it has a time.
    struct Point {
        var entry: Entry
        var hasTime: Bool
    }

    /// Imports into the user's store, parsing on this thread while a second one stores (see `PipelinedImportTarget`).
    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        try importFile(path, into: PipelinedImportTarget(store))
    }

    /// Imports into any target (a convert's spool).
    public func importFile(_ path: String, into store: any ImportTarget) throws -> [ImportResult] {
        try XMLImport.run(path, store: store) {
            let handler = GPXHandler(path: path, name: name, store: store)
            let parser = XMLSAXParser(file: path, handler: handler)
            handler.parser = parser
            try parser.parseFile()
            return try handler.finish()
        }
    }
}

/// The GPX import as SAX events (libxml2's push parser: a GPX of millions of points streams through with no per-node
/// allocation). The parser calls this class; the work is done by `GPXReader`, a struct it holds.
final class GPXHandler: XMLSAXHandler {
    // Why a pointer: every access to a class's stored `var` is checked for exclusivity at run time, a call into the
    // runtime per SAX event (about 10 events per track point; profiled: 13 % of a GPX -> GeoJSON convert). The
    // reader lives behind a `let` pointer this class owns, and its methods are `mutating`, so the compiler checks
    // its accesses statically instead. Sound because libxml2 calls one callback at a time, on the parsing thread.
    private let reader: UnsafeMutablePointer<GPXReader>

    init(path: String, name: String?, store: any ImportTarget) {
        reader = .allocate(capacity: 1)
        reader.initialize(to: GPXReader(path: path, name: name, store: store))
    }

    deinit {
        reader.deinitialize(count: 1)
        reader.deallocate()
    }

    /// The parser (for line numbers in errors).
    var parser: XMLSAXParser? {
        get { reader.pointee.parser }
        set { reader.pointee.parser = newValue }
    }

    func startElement(_ element: XMLName, namespace: XMLName, attributes: XMLAttributes) throws {
        try reader.pointee.startElement(element, namespace: namespace, attributes: attributes)
    }

    func characters(_ chunk: UnsafeBufferPointer<UInt8>) { reader.pointee.characters(chunk) }

    func endElement(_ element: XMLName, namespace: XMLName) throws { try reader.pointee.endElement(element, namespace: namespace) }

    /// After the document: the sessions imported.
    func finish() throws -> [ImportResult] { try reader.pointee.finish() }
}

/// What `GPXHandler` does with each event. Depths count from the root element (0).
struct GPXReader {
    let path: String
    let name: String?
    let store: any ImportTarget
    unowned(unsafe) var parser: XMLSAXParser?

    private var depth = -1
    private var sawRoot = false
    private var metadataName: String?
    private var metadataTime: Timestamp?
    private var marks: [GPXImporter.Point] = []
    private var results: [ImportResult] = []
    private lazy var stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension

    /// The trk or rte being read.
    private struct Track {
        var depth: Int
        var isRoute: Bool
        var defaultName: String
        var marks: [GPXImporter.Point]
        var name: String?
        var mode: TripMode?
        var sourceID: String?
        var sink: EntrySink?
        var waiting: [Entry] = []  // untimed points at the start of the track
        var lastTime: Timestamp?
    }
    private var track: Track?

    /// The wpt, trkpt or rtept being read.
    // Not an optional `Point`: taking the entry out of an optional copies it once more per point.
    private var inPoint = false
    private var current = Entry(id: "", latitude: 0, longitude: 0, time: Timestamp(milliseconds: 0))
    private var currentHasTime = false
    private var pointDepth = 0
    private var pointIsMark = false

    /// The element whose text is being collected.
    private enum Field { case metaName(always: Bool), metaTime(always: Bool), trackName, trackType, trackSource
        case ele, time, name, desc, sat, hdop, vdop, pdop, fix, speed, course }
    private var capturing: Field?
    private var captureDepth = 0
    private var text: [UInt8] = []

    init(path: String, name: String?, store: any ImportTarget) {
        self.path = path
        self.name = name
        self.store = store
        text.reserveCapacity(256)
    }

    private var line: Int { parser?.line ?? 0 }

    private mutating func capture(_ field: Field) {
        capturing = field
        captureDepth = depth
        text.removeAll(keepingCapacity: true)
    }

    private static func isGPX(_ namespace: XMLName) -> Bool {
        namespace.equals("http://www.topografix.com/GPX/1/1") || namespace.equals("http://www.topografix.com/GPX/1/0")
    }

    mutating func startElement(_ element: XMLName, namespace: XMLName, attributes: XMLAttributes) throws {
        depth += 1
        if capturing != nil { return }  // nested in an element whose text is read whole
        if !sawRoot {
            guard element.equals("gpx"), Self.isGPX(namespace) else {
                let ns = namespace.isEmpty ? "none" : namespace.string
                throw ImportError.unsupportedFormat(
                    file: path, detail: "not GPX 1.0 or 1.1: the root element is <\(element.string)> in namespace '\(ns)'")
            }
            sawRoot = true
            return
        }
        if inPoint {
            if element.equals("ele") { capture(.ele) }
            else if element.equals("time") { capture(.time) }
            else if element.equals("name") && depth == pointDepth + 1 { capture(.name) }
            else if element.equals("desc") && depth == pointDepth + 1 { capture(.desc) }
            else if element.equals("sat") { capture(.sat) }
            else if element.equals("hdop") { capture(.hdop) }
            else if element.equals("vdop") { capture(.vdop) }
            else if element.equals("pdop") { capture(.pdop) }
            else if element.equals("fix") { capture(.fix) }
            else if element.equals("speed") { capture(.speed) }
            else if element.equals("course") { capture(.course) }
            return
        }
        if track != nil {
            // Read the two fields, not `if let t = track`: that copies the whole track state (its sink and arrays,
            // retained and released) for every point.
            let child = depth == track!.depth + 1
            if child && element.equals("name") { capture(.trackName) }
            else if child && element.equals("type") { capture(.trackType) }
            else if child && element.equals("src") { capture(.trackSource) }
            else if element.equals(track!.isRoute ? "rtept" : "trkpt") { try startPoint(attributes, mark: false) }
            return
        }
        guard Self.isGPX(namespace) else { return }
        if element.equals("name") && depth <= 2 {
            if depth == 1 || metadataName == nil { capture(.metaName(always: depth == 1)) }
        } else if element.equals("time") && depth <= 2 {
            if depth == 1 || metadataTime == nil { capture(.metaTime(always: depth == 1)) }
        } else if element.equals("wpt") && depth == 1 {
            try startPoint(attributes, mark: true)
        } else if (element.equals("trk") || element.equals("rte")) && depth == 1 {
            track = Track(depth: depth, isRoute: element.equals("rte"), defaultName: name ?? metadataName ?? stem,
                          marks: results.isEmpty ? marks : [])
        }
    }

    mutating func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        if capturing != nil { text.append(contentsOf: chunk) }
    }

    mutating func endElement(_ element: XMLName, namespace: XMLName) throws {
        defer { depth -= 1 }
        if let field = capturing {
            if depth == captureDepth {
                capturing = nil
                try finishField(field)
            }
            return
        }
        if inPoint && depth == pointDepth {
            try finishPoint()
        } else if let t = track, depth == t.depth {
            try finishTrack()
        }
    }

    // MARK: - Points

    private mutating func startPoint(_ attributes: XMLAttributes, mark: Bool) throws {
        let latBytes = attributes.value("lat")
        let lonBytes = attributes.value("lon")
        guard let lat = latBytes.flatMap(ByteNumber.double), abs(lat) <= 90 else {
            throw ImportError.invalidValue(file: path, line: line, field: "latitude", value: latBytes.map(ByteNumber.text) ?? "")
        }
        guard let lon = lonBytes.flatMap(ByteNumber.double), abs(lon) <= 180 else {
            throw ImportError.invalidValue(file: path, line: line, field: "longitude", value: lonBytes.map(ByteNumber.text) ?? "")
        }
        current = Entry(id: "", latitude: lat, longitude: lon, time: Timestamp(milliseconds: 0))
        currentHasTime = false
        inPoint = true
        pointDepth = depth
        pointIsMark = mark
    }

    /// A number from the collected text; nil when empty; an error naming the line when not a finite number.
    private func number(_ field: String) throws -> Double? {
        let trimmed = ByteNumber.trimmed(text)
        if trimmed.isEmpty { return nil }
        guard let v = ByteNumber.double(trimmed) else {
            throw ImportError.invalidValue(file: path, line: line, field: field, value: String(decoding: trimmed, as: UTF8.self))
        }
        return v
    }

    private mutating func finishField(_ field: Field) throws {
        switch field {
        case .metaName(let always):
            if always || metadataName == nil { metadataName = String(decoding: text, as: UTF8.self).trimmedWhitespace }
        case .metaTime(let always):
            if always || metadataTime == nil { metadataTime = Timestamp(iso8601Bytes: Array(ByteNumber.trimmed(text))) }
        case .trackName: track?.name = String(decoding: text, as: UTF8.self).trimmedWhitespace
        case .trackType: track?.mode = TripMode(rawValue: String(decoding: text, as: UTF8.self).trimmedWhitespace.lowercased())
        case .trackSource:
            // Our own exports name the session they came from: a re-import keeps its id when it is free.
            let src = String(decoding: text, as: UTF8.self).trimmedWhitespace
            if src.hasPrefix("gpslog session ") { track?.sourceID = String(src.dropFirst("gpslog session ".count)) }
        case .ele: current.altitude = try number("ele")
        case .time:
            let t = ByteNumber.trimmed(text)
            guard let time = Timestamp(iso8601Bytes: t.count == text.count ? text : Array(t)) else {
                throw ImportError.invalidValue(file: path, line: line, field: "time", value: String(decoding: t, as: UTF8.self))
            }
            current.time = time
            currentHasTime = true
        case .name: current.label = String(decoding: text, as: UTF8.self)
        case .desc: current.address = String(decoding: text, as: UTF8.self)
        case .sat: current.satellites = try number("sat").map { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        case .hdop: current.hdop = try number("hdop").flatMap { $0 >= 0 ? $0 : nil }
        case .vdop: current.vdop = try number("vdop").flatMap { $0 >= 0 ? $0 : nil }
        case .pdop: current.pdop = try number("pdop").flatMap { $0 >= 0 ? $0 : nil }
        case .fix:
            switch String(decoding: ByteNumber.trimmed(text), as: UTF8.self) {
            case "2d": current.fixMode = .twoD
            case "3d": current.fixMode = .threeD
            default: break
            }
        case .speed: current.speed = try number("speed").flatMap { $0 >= 0 ? $0 : nil }
        case .course: current.course = try number("course").map { Geo.normalizedDegrees($0) }
        }
    }

    private mutating func finishPoint() throws {
        guard inPoint else { return }
        inPoint = false
        if pointIsMark {
            var p = GPXImporter.Point(entry: current, hasTime: currentHasTime)
            p.entry.label = p.entry.label.flatMap { $0.isEmpty ? nil : $0 }
            p.entry.marked = true
            marks.append(p)
            return
        }
        current.label = nil  // a track point's name is not a mark's label (labels are for marks only)
        if currentHasTime, try Self.appendTimed(&current, to: &track!) { return }
        var p = GPXImporter.Point(entry: current, hasTime: currentHasTime)
        if p.hasTime {
            try openTrackSession(at: p.entry.time)
            for var w in track!.waiting {
                w.time = p.entry.time
                w.id = track!.sink!.makeTrackPointID(w.time)
                try track!.sink!.add(w)
            }
            track!.waiting.removeAll()
            track!.lastTime = p.entry.time
            p.entry.id = track!.sink!.makeTrackPointID(p.entry.time)
            try track!.sink!.add(p.entry)
        } else if let lastTime = track!.lastTime {
            var e = p.entry
            e.time = lastTime
            e.id = track!.sink!.makeTrackPointID(e.time)
            try track!.sink!.add(e)
        } else {
            track!.waiting.append(p.entry)
        }
    }

    /// The common case in one access to the track state: a timed point of a track whose session is open and has no
    /// untimed points waiting for a time. False when it is not that case (nothing done).
    private static func appendTimed(_ entry: inout Entry, to t: inout Track) throws -> Bool {
        guard t.waiting.isEmpty, t.sink != nil else { return false }
        t.lastTime = entry.time
        entry.id = t.sink!.makeTrackPointID(entry.time)
        try t.sink!.add(entry)
        return true
    }

    // MARK: - Tracks

    private func fallbackTime() -> Timestamp {
        if let metadataTime { return metadataTime }
        let date = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        return Timestamp(seconds: date.timeIntervalSince1970)
    }

    private mutating func openTrackSession(at time: Timestamp) throws {
        guard track!.sink == nil else { return }
        // The first timed point starts the session (a file's metadata time is when the file was written,
        // sometimes years off); marks earlier than it move the start back.
        let t = track!
        let earliestMark = t.marks.compactMap { $0.hasTime ? $0.entry.time : nil }.min()
        let begin = min(earliestMark ?? time, time)
        track!.sink = try EntrySink(store: store, name: name ?? t.name ?? t.defaultName, start: begin, mode: t.mode, preferredID: t.sourceID)
    }

    private mutating func finishTrack() throws {
        if !track!.waiting.isEmpty {
            let time = fallbackTime()
            try openTrackSession(at: time)
            for var w in track!.waiting {
                w.time = time
                w.id = track!.sink!.makeTrackPointID(time)
                try track!.sink!.add(w)
            }
        }
        let t = track!
        track = nil
        guard var sink = t.sink else { return }
        for var m in t.marks {
            if !m.hasTime { m.entry.time = sink.session!.start }
            m.entry.id = sink.makeID(m.entry.time)
            try sink.add(m.entry)
        }
        if results.isEmpty { marks = [] }
        results.append(try sink.finish())
    }

    /// After the document: waypoints with no track make a session of marks.
    mutating func finish() throws -> [ImportResult] {
        if !marks.isEmpty {
            let first = marks.compactMap { $0.hasTime ? $0.entry.time : nil }.min() ?? fallbackTime()
            var sink = try EntrySink(store: store, name: name ?? metadataName ?? stem, start: first, mode: nil, preferredID: nil)
            for var m in marks {
                if !m.hasTime { m.entry.time = first }
                m.entry.id = sink.makeID(m.entry.time)
                try sink.add(m.entry)
            }
            results.append(try sink.finish())
        }
        guard !results.isEmpty else { throw ImportError.noFixes(file: path, detail: "no track, route or waypoint") }
        return results
    }
}

/// Numbers from raw bytes, without making Strings (the importers' hot path).
enum ByteNumber {
    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The bytes without leading and trailing ASCII white space.
    static func trimmed<C: RandomAccessCollection>(_ bytes: C) -> C.SubSequence where C.Element == UInt8 {
        var s = bytes[...]
        while let f = s.first, isSpace(f) { s.removeFirst() }
        while let l = s.last, isSpace(l) { s.removeLast() }
        return s
    }

    /// A finite decimal number (strtod's syntax, the whole text), else nil.
    static func double<C: RandomAccessCollection>(_ bytes: C) -> Double? where C.Element == UInt8 {
        let t = trimmed(bytes)
        guard !t.isEmpty, t.count < 64 else { return nil }
        if let v = simpleDecimal(t) { return v }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> Double? in
            var i = 0
            for b in t { buffer[i] = CChar(bitPattern: b); i += 1 }
            buffer[i] = 0
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(buffer.baseAddress!, &end)
            guard end == buffer.baseAddress! + i, v.isFinite else { return nil }
            return v
        }
    }

    private static let exactPowers: [Double] = (0...22).map { pow(10, Double($0)) }

    /// `[-]digits[.digits]` with at most 15 significant digits, exactly: the digits form an integer below 2^53 and
    /// the power of ten is exact, so one division rounds correctly (Clinger's fast path) and the result is the one
    /// strtod gives. Coordinates, elevations and times' numbers in GPX all take this path; anything else is strtod's.
    static func simpleDecimal<C: Collection>(_ t: C) -> Double? where C.Element == UInt8 {
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = -1  // digits after the point, -1 before it
        var negative = false
        var first = true
        for b in t {
            defer { first = false }
            if b >= 48 && b <= 57 {
                digits += 1
                if digits > 15 { return nil }
                mantissa = mantissa * 10 + Int64(b - 48)
                if fraction >= 0 { fraction += 1 }
            } else if b == UInt8(ascii: ".") && fraction < 0 {
                fraction = 0
            } else if b == UInt8(ascii: "-") && first {
                negative = true
            } else {
                return nil
            }
        }
        guard digits > 0, fraction != 0 else { return nil }  // "", "-", "." and "5." go to strtod
        var v = Double(mantissa)
        if fraction > 0 { v /= exactPowers[fraction] }
        return negative ? -v : v
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
