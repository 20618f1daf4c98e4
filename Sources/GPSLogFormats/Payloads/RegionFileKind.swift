// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// What `gpslog region import` reads, told by the content rather than the file's name: OwnTracks' waypoints export
/// (`_type`, or a JSON array of waypoints) or GeoJSON (a `type` of RFC 7946's).
public enum RegionFileKind: Sendable, Equatable {
    case ownTracksWaypoints
    case geoJSON

    /// The kind of `data`; refused naming `source` when it is neither.
    public static func detect(_ data: Data, source: String) throws -> RegionFileKind {
        guard let kind = try PayloadJSON.decode(Probe.self, from: data, source: source, line: 0).kind else {
            throw ImportError.unsupportedFormat(
                file: source,
                detail: "neither OwnTracks waypoints (_type: waypoints) nor GeoJSON (type: FeatureCollection)")
        }
        return kind
    }

    static let geoJSONTypes: Set = [
        "FeatureCollection", "Feature", "Polygon", "MultiPolygon", "Point", "MultiPoint", "LineString",
        "MultiLineString", "GeometryCollection",
    ]

    /// Reads only the top level's `_type` and `type`.
    struct Probe: Decodable {
        var kind: RegionFileKind?

        init(from decoder: any Decoder) throws {
            if (try? decoder.unkeyedContainer()) != nil {
                kind = .ownTracksWaypoints
            } else if let c = try? decoder.container(keyedBy: JSONKey.self) {
                if c.contains(JSONKey("_type")) {
                    kind = .ownTracksWaypoints
                } else if let type = try? c.decode(String.self, forKey: JSONKey("type")) {
                    kind = RegionFileKind.geoJSONTypes.contains(type) ? .geoJSON : nil
                }
            }
        }
    }
}

extension OwnTracksWaypoints {
    /// OwnTracks' waypoints export of `regions` (`_type: waypoints`), as its apps import it: each region a waypoint
    /// with its `desc`, centre, radius in whole metres (rounded up) and `rid`. OwnTracks knows only circles: the caller
    /// gives a polygon region as a circle that holds it.
    public static func export(_ regions: [Region]) throws -> Data {
        struct Waypoint: Encodable {
            var _type = "waypoint"
            var desc: String
            var lat: Double
            var lon: Double
            var rad: Int
            var tst: Int64
            var rid: String
        }
        struct Document: Encodable {
            var _type = "waypoints"
            var waypoints: [Waypoint]
        }
        let waypoints = regions.map {
            Waypoint(
                desc: $0.name, lat: $0.latitude, lon: $0.longitude, rad: Int($0.radius.rounded(.up)),
                tst: $0.created.milliseconds.floorSeconds, rid: $0.regionID)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Document(waypoints: waypoints))
    }
}
