// SPDX-License-Identifier: MIT
import GPSLogModel

/// GeoJSON (RFC 7946): a FeatureCollection with, per session, the track as a LineString (a MultiLineString where a
/// time gap splits it) with per-vertex times in `properties.coordTimes` (the togeojson convention, nested per line
/// for a MultiLineString), and each mark as a Point with its label and address. Longitude before latitude, at most
/// 7 decimals; streamed in two passes over the track (coordinates, then times) so memory stays flat.
public struct GeoJSONWriter {
    public init() {}

    public func write(_ sessions: [SessionExport], to out: OutputFile) throws {
        try out.write("{\"type\":\"FeatureCollection\",\"features\":[")
        var firstFeature = true
        func separator() throws {
            if !firstFeature { try out.write(",") }
            firstFeature = false
            try out.write("\n")
        }
        for s in sessions {
            var segments = 0
            var points = 0
            var segmenter = TrackSegmenter()
            try s.forEachTrackPoint { e in
                if points == 0 || segmenter.startsSegment(e.time) { segments += 1 }
                points += 1
            }
            if points > 0 {
                try separator()
                try writeTrack(s, multi: segments > 1, to: out)
            }
            for mark in s.marks {
                try separator()
                try out.append { b in
                    JSONText.appendRaw(#"{"type":"Feature","geometry":{"type":"Point","coordinates":"#, to: &b)
                    Self.appendPosition(mark, to: &b)
                    JSONText.appendRaw(#"},"properties":{"kind":"mark","time":"#, to: &b)
                    JSONText.appendTime(mark.time, to: &b)
                    JSONText.appendOptional("label", mark.label, to: &b)
                    JSONText.appendOptional("address", mark.address, to: &b)
                    JSONText.appendRaw(#","session":"#, to: &b)
                    JSONText.appendString(s.session.id, to: &b)
                    JSONText.appendRaw(#","id":"#, to: &b)
                    JSONText.appendString(mark.id, to: &b)
                    JSONText.appendRaw("}}", to: &b)
                }
            }
        }
        try out.write("\n]}\n")
    }

    private func writeTrack(_ s: SessionExport, multi: Bool, to out: OutputFile) throws {
        try out.append { b in
            JSONText.appendRaw(#"{"type":"Feature","geometry":{"type":"#, to: &b)
            JSONText.appendRaw(multi ? #""MultiLineString","coordinates":["# : #""LineString","coordinates":"#, to: &b)
        }
        try pass(s, multi: multi, to: out) { e, b in Self.appendPosition(e, to: &b) }
        try out.append { b in
            JSONText.appendRaw(multi ? "]}" : "}", to: &b)
            JSONText.appendRaw(#","properties":{"kind":"track","name":"#, to: &b)
            JSONText.appendString(s.session.name, to: &b)
            JSONText.appendRaw(#","session":"#, to: &b)
            JSONText.appendString(s.session.id, to: &b)
            JSONText.appendRaw(#","start":"#, to: &b)
            JSONText.appendTime(s.session.start, to: &b)
            if let end = s.session.end {
                JSONText.appendRaw(#","end":"#, to: &b)
                JSONText.appendTime(end, to: &b)
            }
            JSONText.appendOptional("mode", s.session.mode?.rawValue, to: &b)
            JSONText.appendRaw(#","coordTimes":"#, to: &b)
            if multi { JSONText.appendRaw("[", to: &b) }
        }
        try pass(s, multi: multi, to: out) { e, b in JSONText.appendTime(e.time, to: &b) }
        try out.write(multi ? "]}}" : "}}")
    }

    /// Writes one array per segment (or one array) with `item` for each track point.
    private func pass(_ s: SessionExport, multi: Bool, to out: OutputFile, item: @escaping (Entry, inout [UInt8]) -> Void) throws {
        var segmenter = TrackSegmenter()
        var first = true
        try out.write("[")
        try s.forEachTrackPoint { e in
            let newSegment = segmenter.startsSegment(e.time)
            try out.append { b in
                if newSegment && multi {
                    JSONText.appendRaw("],[", to: &b)
                } else if !first {
                    b.append(UInt8(ascii: ","))
                }
                item(e, &b)
            }
            first = false
        }
        try out.write("]")
    }

    /// `[lon,lat]` or `[lon,lat,ele]`.
    static func appendPosition(_ e: Entry, to b: inout [UInt8]) {
        b.append(UInt8(ascii: "["))
        Decimal.append(e.longitude, places: Precision.coordinate, to: &b)
        b.append(UInt8(ascii: ","))
        Decimal.append(e.latitude, places: Precision.coordinate, to: &b)
        if let alt = e.altitude {
            b.append(UInt8(ascii: ","))
            Decimal.append(alt, places: Precision.altitude, to: &b)
        }
        b.append(UInt8(ascii: "]"))
    }
}
