// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// KML 2.2: per session a Placemark with the track as Google's `gx:Track` (a time per point; absolute altitudes when
/// known; a `gx:MultiTrack` when the track has several segments, see `TrackSegmenter`) and its time span, a
/// Placemark with a Point and a TimeStamp for each mark (label as name, address as description), and one for each
/// region transition (the region's name, its `event` in ExtendedData).
public struct KMLWriter: TrackWriter {
    static let gxNamespace = "http://www.google.com/kml/ext/2.2"

    /// A KML writer; it has no options.
    public init() {}

    /// Writes one KML document to output 0.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        try outputs.writeXML(
            root: "kml", attributes: ["xmlns": "http://www.opengis.net/kml/2.2", "xmlns:gx": Self.gxNamespace]
        ) { w in
            try w.startElement("Document")
            try w.element("name", sessions.count == 1 ? sessions[0].session.name : "gpslog export")
            for s in sessions {
                try w.startElement("Folder")
                try w.element("name", s.session.name)
                var count = 0
                var last: Timestamp?
                var hasAltitude = false
                var segments = 0
                var segmenter = TrackSegmenter()
                try s.forEachTrackPoint(fields: .track) { e in
                    if segmenter.startsSegment(e) || count == 0 { segments += 1 }
                    count += 1
                    last = e.time
                    hasAltitude = hasAltitude || e.altitude != nil
                }
                if count > 0 {
                    try w.startElement("Placemark")
                    try w.element("name", s.session.name)
                    try w.startElement("TimeSpan")
                    try w.element("begin", s.session.start.iso8601())
                    try w.element("end", (s.session.end ?? last ?? s.session.start).iso8601())
                    try w.endElement()
                    try writeTrack(s, segments: segments, hasAltitude: hasAltitude, writer: w)
                    try w.endElement()
                }
                try s.forEachMark { mark in
                    try w.startElement("Placemark")
                    try w.element("name", mark.label ?? "Mark")
                    if let address = mark.address { try w.element("description", address) }
                    try w.startElement("TimeStamp")
                    try w.element("when", mark.time.iso8601())
                    try w.endElement()
                    try w.startElement("Point")
                    var c =
                        DecimalText.string(mark.longitude, places: Precision.coordinate) + ","
                        + DecimalText.string(mark.latitude, places: Precision.coordinate)
                    if let alt = mark.altitude { c += "," + DecimalText.string(alt, places: Precision.altitude) }
                    try w.element("coordinates", c)
                    try w.endElement()
                    try w.endElement()
                }
                // Region transitions: a Placemark named after the region, its event in ExtendedData.
                for t in try s.transitions() {
                    try w.startElement("Placemark")
                    try w.element("name", t.region.name)
                    try w.startElement("TimeStamp")
                    try w.element("when", t.time.iso8601())
                    try w.endElement()
                    try w.startElement("ExtendedData")
                    try w.startElement("Data")
                    try w.attribute("name", "event")
                    try w.element("value", t.event.rawValue)
                    try w.endElement()
                    try w.endElement()
                    try w.startElement("Point")
                    try w.element(
                        "coordinates",
                        DecimalText.string(t.longitude, places: Precision.coordinate) + ","
                            + DecimalText.string(t.latitude, places: Precision.coordinate))
                    try w.endElement()
                    try w.endElement()
                }
                try w.endElement()
            }
            try w.endElement()
        }
    }

    /// The track as Google's `gx:Track` (a `when` per point, then a `gx:coord` per point, as Google Earth, GDAL and
    /// GPSBabel read it), in a `gx:MultiTrack` when it has several segments. A track's `when`s go out as the points
    /// are read and its coordinates wait in a `ScratchFile`: one more read of the session, flat memory.
    private func writeTrack(_ s: SessionExport, segments: Int, hasAltitude: Bool, writer w: XMLStreamWriter) throws {
        let trackDepth = segments > 1 ? 5 : 4
        if segments > 1 {
            try w.startElement("gx:MultiTrack")
            if hasAltitude { try w.element("altitudeMode", "absolute") }
            try w.element("gx:interpolate", "0")
        }
        let indent = [0x0A] + [UInt8](repeating: 0x20, count: 2 * (trackDepth + 1))
        var coords = ScratchFile()
        var markup: [UInt8] = []
        markup.reserveCapacity(1 << 16)
        // libxml2 ends the line after an element it wrote (`altitudeMode`), not after a start tag.
        var lineEnded = false
        func startTrack() throws {
            try w.startElement("gx:Track")
            if hasAltitude { try w.element("altitudeMode", "absolute") }
            lineEnded = hasAltitude
        }
        func endTrack() throws {
            try w.raw(markup)
            markup.removeAll(keepingCapacity: true)
            try coords.copy(to: RawXML(writer: w))
            try w.raw([0x0A] + [UInt8](repeating: 0x20, count: 2 * trackDepth))
            try w.endElement()
            coords = ScratchFile()
        }
        var segmenter = TrackSegmenter()
        var first = true
        try s.forEachTrackPoint(fields: .track) { e in
            let starts = segmenter.startsSegment(e)
            if first || starts {
                if !first { try endTrack() }
                try startTrack()
            }
            first = false
            markup.append(contentsOf: lineEnded ? indent.dropFirst() : indent[...])
            lineEnded = false
            markup.append(contentsOf: "<when>".utf8)
            e.time.appendISO8601(to: &markup)
            markup.append(contentsOf: "</when>".utf8)
            if markup.count >= 1 << 15 {
                try w.raw(markup)
                markup.removeAll(keepingCapacity: true)
            }
            try coords.append { b in
                b.append(contentsOf: indent)
                b.append(contentsOf: "<gx:coord>".utf8)
                DecimalText.append(e.longitude, places: Precision.coordinate, to: &b)
                b.append(UInt8(ascii: " "))
                DecimalText.append(e.latitude, places: Precision.coordinate, to: &b)
                b.append(UInt8(ascii: " "))
                DecimalText.append(e.altitude ?? 0, places: Precision.altitude, to: &b)
                b.append(contentsOf: "</gx:coord>".utf8)
            }
        }
        try endTrack()
        if segments > 1 { try w.endElement() }
    }
}

/// Raw markup into an XML writer, as a `ByteSink` (for a `ScratchFile`'s copy).
private final class RawXML: ByteSink {
    let writer: XMLStreamWriter
    init(writer: XMLStreamWriter) { self.writer = writer }
    func append(_ body: (inout [UInt8]) -> Void) throws {
        var b: [UInt8] = []
        body(&b)
        try writer.raw(b)
    }
}
