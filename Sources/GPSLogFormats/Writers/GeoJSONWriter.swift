// SPDX-License-Identifier: MIT
import GPSLogModel

/// GeoJSON (RFC 7946): a FeatureCollection with, per session, the track as a LineString (a MultiLineString where a
/// time gap splits it) with per-vertex times in `properties.coordTimes` (the togeojson convention, nested per line
/// for a MultiLineString), each mark as a Point with its label and address, and each visit (`record --visits`) as a
/// Point with its arrival, departure and address. Longitude before latitude, at most
/// 7 decimals; streamed in one pass over the track (times set aside in a scratch file) so memory stays flat.
public struct GeoJSONWriter: TrackWriter {
    /// A GeoJSON writer; it has no options.
    public init() {}

    /// Writes one FeatureCollection to output 0.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        let out = try outputs.open(0)
        var document = GeoJSONDocument(out)
        try document.begin()
        for s in sessions {
            var track = GeoJSONTrack()
            try s.forEachTrackPoint(fields: .track) { try track.add($0) }
            try document.addTrack(s.session, track)
            try s.forEachMark { try document.addMark($0, of: s.session) }
            for visit in try s.visits() { try document.addVisit(visit, of: s.session) }
            for transition in try s.transitions() { try document.addTransition(transition, of: s.session) }
        }
        try document.end()
        try out.commit()
    }

    /// `[lon,lat]` or `[lon,lat,ele]`.
    static func appendPosition(_ e: Entry, to b: inout [UInt8]) {
        b.append(UInt8(ascii: "["))
        DecimalText.append(e.longitude, places: Precision.coordinate, to: &b)
        b.append(UInt8(ascii: ","))
        DecimalText.append(e.latitude, places: Precision.coordinate, to: &b)
        if let alt = e.altitude {
            b.append(UInt8(ascii: ","))
            DecimalText.append(alt, places: Precision.altitude, to: &b)
        }
        b.append(UInt8(ascii: "]"))
    }
}
