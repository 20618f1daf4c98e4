// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// KML 2.2: per session a Placemark with the track as a LineString (absolute altitudes when known; a MultiGeometry
/// of LineStrings when the track has several segments, see `TrackSegmenter`) and its time span, and a Placemark with a Point and a TimeStamp for each mark (label as name, address as description).
public struct KMLWriter: TrackWriter {
    public init() {}

    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        try outputs.writeXML(root: "kml", attributes: ["xmlns": "http://www.opengis.net/kml/2.2"]) { w in
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
                    if segments > 1 { try w.startElement("MultiGeometry") }
                    func startLine() throws {
                        try w.startElement("LineString")
                        if hasAltitude { try w.element("altitudeMode", "absolute") }
                        try w.startElement("coordinates")
                    }
                    try startLine()
                    var line: [UInt8] = []
                    segmenter = TrackSegmenter()
                    var first = true
                    try s.forEachTrackPoint(fields: .track) { e in
                        if segmenter.startsSegment(e) && !first {
                            try w.endElement()
                            try w.endElement()
                            try startLine()
                        }
                        first = false
                        line.removeAll(keepingCapacity: true)
                        DecimalText.append(e.longitude, places: Precision.coordinate, to: &line)
                        line.append(UInt8(ascii: ","))
                        DecimalText.append(e.latitude, places: Precision.coordinate, to: &line)
                        if hasAltitude {
                            line.append(UInt8(ascii: ","))
                            DecimalText.append(e.altitude ?? 0, places: Precision.altitude, to: &line)
                        }
                        line.append(UInt8(ascii: " "))
                        try w.text(String(decoding: line, as: UTF8.self))
                    }
                    try w.endElement()
                    try w.endElement()
                    if segments > 1 { try w.endElement() }
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
                try w.endElement()
            }
            try w.endElement()
        }
    }
}
