// SPDX-License-Identifier: MIT
import Foundation
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

    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        try XMLImport.run(path, store: store) { try parse(path, store: store) }
    }

    private func parse(_ path: String, store: Store) throws -> [ImportResult] {
        let reader = try XMLStreamReader(path: path)
        var results: [ImportResult] = []
        var metadataName: String?
        var metadataTime: Timestamp?
        var marks: [Point] = []
        var sawRoot = false
        let fallbackTime: () -> Timestamp = {
            if let metadataTime { return metadataTime }
            let date = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
            return Timestamp(seconds: date.timeIntervalSince1970)
        }
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension

        while try reader.read() {
            guard reader.nodeType == .element else { continue }
            let local = reader.localName
            if !sawRoot {
                guard local == "gpx", let ns = reader.namespaceURI, GPXImporter.namespaces.contains(ns) else {
                    throw ImportError.unsupportedFormat(
                        file: path, detail: "not GPX 1.0 or 1.1: the root element is <\(local)> in namespace '\(reader.namespaceURI ?? "none")'")
                }
                sawRoot = true
                continue
            }
            guard GPXImporter.namespaces.contains(reader.namespaceURI ?? "") else { continue }
            switch (local, reader.depth) {
            case ("name", 1), ("name", 2) where metadataName == nil:
                metadataName = try reader.readElementText().trimmedWhitespace
            case ("time", 1), ("time", 2) where metadataTime == nil:
                let text = try reader.readElementText().trimmedWhitespace
                metadataTime = Timestamp(iso8601: text)
            case ("wpt", 1):
                var p = try readPoint(reader, path: path)
                p.entry.marked = true
                marks.append(p)
            case ("trk", 1), ("rte", 1):
                let pointName = local == "trk" ? "trkpt" : "rtept"
                if let result = try readTrack(reader, pointName: pointName, path: path, store: store, defaultName: name ?? metadataName ?? stem,
                                              marks: results.isEmpty ? marks : [], fallback: fallbackTime) {
                    if results.isEmpty { marks = [] }
                    results.append(result)
                }
            default:
                continue
            }
        }
        if !marks.isEmpty {
            // Waypoints with no track: a session of marks.
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

    /// Reads one trk/rte to its end tag into a new session.
    private func readTrack(
        _ reader: XMLStreamReader, pointName: String, path: String, store: Store, defaultName: String,
        marks: [Point], fallback: () -> Timestamp
    ) throws -> ImportResult? {
        let depth = reader.depth
        var trackName: String?
        var mode: TripMode?
        var sourceID: String?
        var sink: EntrySink?
        var waiting: [Entry] = []  // untimed points at the start of the track
        var lastTime: Timestamp?

        func open(at time: Timestamp) throws {
            guard sink == nil else { return }
            // The first timed point starts the session (a file's metadata time is when the file was written,
            // sometimes years off); marks earlier than it move the start back.
            let earliestMark = marks.compactMap { $0.hasTime ? $0.entry.time : nil }.min()
            let begin = min(earliestMark ?? time, time)
            sink = try EntrySink(store: store, name: name ?? trackName ?? defaultName, start: begin, mode: mode, preferredID: sourceID)
        }

        while try reader.read() {
            if reader.nodeType == .endElement && reader.depth == depth { break }
            guard reader.nodeType == .element else { continue }
            switch reader.localName {
            case "name" where reader.depth == depth + 1:
                trackName = try reader.readElementText().trimmedWhitespace
            case "type" where reader.depth == depth + 1:
                mode = TripMode(rawValue: try reader.readElementText().trimmedWhitespace.lowercased())
            case "src" where reader.depth == depth + 1:
                // Our own exports name the session they came from: a re-import keeps its id when it is free.
                let src = try reader.readElementText().trimmedWhitespace
                if src.hasPrefix("gpslog session ") { sourceID = String(src.dropFirst("gpslog session ".count)) }
            case pointName:
                var p = try readPoint(reader, path: path)
                p.entry.label = nil  // a track point's name is not a mark's label (labels are for marks only)
                if p.hasTime {
                    try open(at: p.entry.time)
                    for var w in waiting {
                        w.time = p.entry.time
                        w.id = sink!.makeID(w.time)
                        try sink!.add(w)
                    }
                    waiting.removeAll()
                    lastTime = p.entry.time
                    var e = p.entry
                    e.id = sink!.makeID(e.time)
                    try sink!.add(e)
                } else if let lastTime {
                    var e = p.entry
                    e.time = lastTime
                    e.id = sink!.makeID(e.time)
                    try sink!.add(e)
                } else {
                    waiting.append(p.entry)
                }
            default:
                continue
            }
        }
        if !waiting.isEmpty {
            let time = fallback()
            try open(at: time)
            for var w in waiting {
                w.time = time
                w.id = sink!.makeID(time)
                try sink!.add(w)
            }
        }
        guard var sink else { return nil }
        for var m in marks {
            if !m.hasTime { m.entry.time = sink.session!.start }
            m.entry.id = sink.makeID(m.entry.time)
            try sink.add(m.entry)
        }
        return try sink.finish()
    }

    /// Reads a wpt/trkpt/rtept and its children.
    private func readPoint(_ reader: XMLStreamReader, path: String) throws -> Point {
        let line = reader.line
        let latText = reader.attribute("lat") ?? ""
        let lonText = reader.attribute("lon") ?? ""
        guard let lat = Double(latText.trimmedWhitespace), lat.isFinite, abs(lat) <= 90 else {
            throw ImportError.invalidValue(file: path, line: line, field: "latitude", value: latText)
        }
        guard let lon = Double(lonText.trimmedWhitespace), lon.isFinite, abs(lon) <= 180 else {
            throw ImportError.invalidValue(file: path, line: line, field: "longitude", value: lonText)
        }
        var entry = Entry(id: "", latitude: lat, longitude: lon, time: Timestamp(milliseconds: 0))
        var hasTime = false
        if reader.isEmptyElement { return Point(entry: entry, hasTime: false) }
        let depth = reader.depth
        func number(_ text: String, _ field: String) throws -> Double? {
            let t = text.trimmedWhitespace
            if t.isEmpty { return nil }
            guard let v = Double(t), v.isFinite else { throw ImportError.invalidValue(file: path, line: reader.line, field: field, value: t) }
            return v
        }
        while try reader.read() {
            if reader.nodeType == .endElement && reader.depth == depth { break }
            guard reader.nodeType == .element else { continue }
            switch reader.localName {
            case "ele": entry.altitude = try number(reader.readElementText(), "ele")
            case "time":
                let t = try reader.readElementText().trimmedWhitespace
                guard let time = Timestamp(iso8601: t) else { throw ImportError.invalidValue(file: path, line: reader.line, field: "time", value: t) }
                entry.time = time
                hasTime = true
            case "name" where reader.depth == depth + 1: entry.label = try reader.readElementText()
            case "desc" where reader.depth == depth + 1: entry.address = try reader.readElementText()
            case "sat": entry.satellites = try number(reader.readElementText(), "sat").map { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
            case "hdop": entry.hdop = try number(reader.readElementText(), "hdop").flatMap { $0 >= 0 ? $0 : nil }
            case "vdop": entry.vdop = try number(reader.readElementText(), "vdop").flatMap { $0 >= 0 ? $0 : nil }
            case "pdop": entry.pdop = try number(reader.readElementText(), "pdop").flatMap { $0 >= 0 ? $0 : nil }
            case "fix":
                switch try reader.readElementText().trimmedWhitespace {
                case "2d": entry.fixMode = .twoD
                case "3d": entry.fixMode = .threeD
                default: break
                }
            case "speed": entry.speed = try number(reader.readElementText(), "speed").flatMap { $0 >= 0 ? $0 : nil }
            case "course": entry.course = try number(reader.readElementText(), "course").map { Geo.normalizedDegrees($0) }
            default: continue
            }
        }
        entry.label = entry.label.flatMap { $0.isEmpty ? nil : $0 }
        return Point(entry: entry, hasTime: hasTime)
    }
}
