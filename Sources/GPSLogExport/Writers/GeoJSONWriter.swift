// SPDX-License-Identifier: MIT
import GPSLogModel

/// GeoJSON (RFC 7946): a FeatureCollection with, per session, the track as a LineString (a MultiLineString where a
/// time gap splits it) with per-vertex times in `properties.coordTimes` (the togeojson convention, nested per line
/// for a MultiLineString), and each mark as a Point with its label and address. Longitude before latitude, at most
/// 7 decimals; streamed in one pass over the track (times set aside in a scratch file) so memory stays flat.
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
            let track = try TrackText(s)
            if track.points > 0 {
                try separator()
                try writeTrack(s, track, to: out)
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

    /// A track's coordinates and times, from one read of the track: a segment break (a time gap) writes "],[",
    /// which only a MultiLineString has, and only the count of segments at the end says which geometry it is.
    private struct TrackText {
        let coordinates = ScratchFile()
        let times = ScratchFile()
        var points = 0
        var segments = 0

        init(_ s: SessionExport) throws {
            var segmenter = TrackSegmenter()
            var points = 0, segments = 0
            let coordinates = coordinates, times = times
            try s.forEachTrackPoint { e in
                let newSegment = segmenter.startsSegment(e.time)
                if points == 0 || newSegment { segments += 1 }
                let separator: StaticString = points == 0 ? "" : newSegment ? "],[" : ","
                try coordinates.append { b in
                    JSONText.appendRaw(separator, to: &b)
                    GeoJSONWriter.appendPosition(e, to: &b)
                }
                try times.append { b in
                    JSONText.appendRaw(separator, to: &b)
                    JSONText.appendTime(e.time, to: &b)
                }
                points += 1
            }
            self.points = points
            self.segments = segments
        }
    }

    private func writeTrack(_ s: SessionExport, _ track: TrackText, to out: OutputFile) throws {
        let multi = track.segments > 1
        try out.append { b in
            JSONText.appendRaw(#"{"type":"Feature","geometry":{"type":"#, to: &b)
            JSONText.appendRaw(multi ? #""MultiLineString","coordinates":[["# : #""LineString","coordinates":["#, to: &b)
        }
        try track.coordinates.copy(to: out)
        try out.append { b in
            JSONText.appendRaw(multi ? "]]}" : "]}", to: &b)
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
            JSONText.appendRaw(multi ? #","coordTimes":[["# : #","coordTimes":["#, to: &b)
        }
        try track.times.copy(to: out)
        try out.write(multi ? "]]}}" : "]}}")
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
