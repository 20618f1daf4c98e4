// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// GPX 1.1 (validated against the official XSD and Garmin's TrackPointExtension v2): marks as `wpt` (label as
/// `name`, address as `desc`), each session a `trk` whose segments split at time gaps; speed and course in
/// `gpxtpx:TrackPointExtension`. Heading-change rows are not track points.
public struct GPXWriter: TrackWriter {
    static let gpxNamespace = "http://www.topografix.com/GPX/1/1"
    static let tpxNamespace = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    /// A GPX writer; it has no options.
    public init() {}

    /// Writes one GPX 1.1 document to output 0.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        let attributes: KeyValuePairs = [
            "version": "1.1", "creator": "gpslog", "xmlns": Self.gpxNamespace, "xmlns:gpxtpx": Self.tpxNamespace,
            "xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance",
            "xsi:schemaLocation": "\(Self.gpxNamespace) http://www.topografix.com/GPX/1/1/gpx.xsd "
                + "\(Self.tpxNamespace) https://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd",
        ]
        try outputs.writeXML(root: "gpx", attributes: attributes) { w in
            try w.startElement("metadata")
            try w.element("name", sessions.count == 1 ? sessions[0].session.name : "gpslog export")
            if let first = sessions.map(\.session.start).min() { try w.element("time", first.iso8601()) }
            try w.endElement()
            for s in sessions {
                try s.forEachMark { mark in
                    try point("wpt", mark, writer: w, name: mark.label, description: mark.address, type: "mark")
                }
                // Region transitions: a waypoint named after the region, of type enter or leave.
                for t in try s.transitions() {
                    let at = Entry(
                        id: "", latitude: t.latitude, longitude: t.longitude, horizontalAccuracy: t.horizontalAccuracy,
                        time: t.time)
                    try point("wpt", at, writer: w, name: t.region.name, description: nil, type: t.event.rawValue)
                }
            }
            for s in sessions {
                try w.startElement("trk")
                try w.element("name", s.session.name)
                try w.element("src", "gpslog session \(s.session.id)")
                if let mode = s.session.mode { try w.element("type", mode.rawValue) }
                var segmenter = TrackSegmenter()
                var open = false
                var markup: [UInt8] = []
                markup.reserveCapacity(1 << 16)
                try s.forEachTrackPoint(fields: .track) { e in
                    if segmenter.startsSegment(e) || !open {
                        if open {
                            markup.append(contentsOf: "\n    ".utf8)
                            try w.raw(markup)
                            markup.removeAll(keepingCapacity: true)
                            try w.endElement()
                        }
                        try w.startElement("trkseg")
                        open = true
                    }
                    Self.appendTrackPoint(e, to: &markup)
                    if markup.count >= 1 << 15 {
                        try w.raw(markup)
                        markup.removeAll(keepingCapacity: true)
                    }
                }
                if open {
                    markup.append(contentsOf: "\n    ".utf8)
                    try w.raw(markup)
                    try w.endElement()
                }
                try w.endElement()
            }
        }
    }

    /// A trkpt as markup, indented as the writer indents (`<trkseg>` is at depth 2), children in the schema's order.
    /// Built by hand and written raw because a track point holds only numbers and a time, which need no escaping,
    /// and fifteen `xmlTextWriter` calls per point (each converting and escaping a Swift string) were most of a
    /// million-point export's time. Marks, which carry text, still go through `point`.
    /// A line break and `n` spaces of indentation, for n in 0...12 (one copy each, not one append per space).
    private static let lineBreaks: [[UInt8]] = (0...12).map { [0x0A] + [UInt8](repeating: 0x20, count: $0) }

    static func appendTrackPoint(_ e: Entry, to b: inout [UInt8]) {
        @inline(__always) func open(_ tag: StaticString, _ indent: Int) {
            b.append(contentsOf: lineBreaks[indent])
            b.append(UInt8(ascii: "<"))
            tag.withUTF8Buffer { b.append(contentsOf: $0) }
            b.append(UInt8(ascii: ">"))
        }
        @inline(__always) func close(_ tag: StaticString) {
            b.append(UInt8(ascii: "<"))
            b.append(UInt8(ascii: "/"))
            tag.withUTF8Buffer { b.append(contentsOf: $0) }
            b.append(UInt8(ascii: ">"))
        }
        @inline(__always) func number(_ tag: StaticString, _ v: Double, _ places: Int, _ indent: Int = 8) {
            open(tag, indent)
            DecimalText.append(v, places: places, to: &b)
            close(tag)
        }
        b.append(contentsOf: lineBreaks[6])
        b.append(contentsOf: "<trkpt lat=\"".utf8)
        DecimalText.append(e.latitude, places: Precision.coordinate, to: &b)
        b.append(contentsOf: "\" lon=\"".utf8)
        DecimalText.append(e.longitude, places: Precision.coordinate, to: &b)
        b.append(contentsOf: "\">".utf8)
        if let v = e.altitude { number("ele", v, Precision.altitude) }
        open("time", 8)
        e.time.appendISO8601(to: &b)
        close("time")
        if let mode = e.fixMode {
            open("fix", 8)
            b.append(contentsOf: (mode == .threeD ? "3d" : "2d").utf8)
            close("fix")
        }
        if let v = e.satellites {
            open("sat", 8)
            b.append(contentsOf: String(v).utf8)
            close("sat")
        }
        if let v = e.hdop { number("hdop", v, Precision.dop) }
        if let v = e.vdop { number("vdop", v, Precision.dop) }
        if let v = e.pdop { number("pdop", v, Precision.dop) }
        if e.speed != nil || e.course != nil {
            open("extensions", 8)
            open("gpxtpx:TrackPointExtension", 10)
            if let v = e.speed { number("gpxtpx:speed", v, Precision.speed, 12) }
            if let v = e.course { number("gpxtpx:course", min(v, 359.99), Precision.angle, 12) }
            b.append(contentsOf: lineBreaks[10])
            close("gpxtpx:TrackPointExtension")
            b.append(contentsOf: lineBreaks[8])
            close("extensions")
        }
        b.append(contentsOf: lineBreaks[6])
        close("trkpt")
    }

    /// A wpt or trkpt, children in the schema's order (ele, time, name, desc, type, fix, sat, hdop, vdop, pdop,
    /// extensions).
    private func point(
        _ element: String, _ e: Entry, writer w: XMLStreamWriter, name: String?, description: String?, type: String?
    ) throws {
        try w.startElement(element)
        try w.attribute("lat", DecimalText.string(e.latitude, places: Precision.coordinate))
        try w.attribute("lon", DecimalText.string(e.longitude, places: Precision.coordinate))
        if let v = e.altitude { try w.element("ele", DecimalText.string(v, places: Precision.altitude)) }
        try w.element("time", e.time.iso8601())
        if let name { try w.element("name", name) }
        if let description { try w.element("desc", description) }
        if let type { try w.element("type", type) }
        if let mode = e.fixMode { try w.element("fix", mode == .threeD ? "3d" : "2d") }
        if let v = e.satellites { try w.element("sat", String(v)) }
        if let v = e.hdop { try w.element("hdop", DecimalText.string(v, places: Precision.dop)) }
        if let v = e.vdop { try w.element("vdop", DecimalText.string(v, places: Precision.dop)) }
        if let v = e.pdop { try w.element("pdop", DecimalText.string(v, places: Precision.dop)) }
        if e.speed != nil || e.course != nil {
            try w.startElement("extensions")
            try w.startElement("gpxtpx:TrackPointExtension")
            if let v = e.speed { try w.element("gpxtpx:speed", DecimalText.string(v, places: Precision.speed)) }
            if let v = e.course {
                try w.element("gpxtpx:course", DecimalText.string(min(v, 359.99), places: Precision.angle))
            }
            try w.endElement()
            try w.endElement()
        }
        try w.endElement()
    }
}
