// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// OwnTracks' waypoints as its apps export them (`{"_type":"waypoints","waypoints":[...]}`, or a bare array of
/// `_type: waypoint` objects): the ones with a radius are circular regions.
public enum OwnTracksWaypoints {
    struct Document: Decodable {
        var type: String?
        var waypoints: [Waypoint]

        private enum Keys: String, CodingKey {
            case type = "_type"
            case waypoints
        }

        init(from decoder: any Decoder) throws {
            if var list = try? decoder.unkeyedContainer() {
                var all: [Waypoint] = []
                while !list.isAtEnd { all.append(try list.decode(Waypoint.self)) }
                waypoints = all
                return
            }
            let c = try decoder.container(keyedBy: Keys.self)
            type = try c.decodeIfPresent(String.self, forKey: .type)
            waypoints = try c.decodeIfPresent([Waypoint].self, forKey: .waypoints) ?? []
        }
    }

    struct Waypoint: Decodable {
        var desc: String?
        var lat: Double?
        var lon: Double?
        var rad: Double?
        var tst: Double?
        var rid: String?
    }

    /// The circular regions of a waypoints file (waypoints without a radius are places, not regions: skipped and
    /// counted). A bad value is refused naming the waypoint and field; then nothing is taken.
    /// - Returns: the regions, and how many waypoints had no radius.
    public static func regions(_ data: Data, source: String) throws -> (regions: [Region], withoutRadius: Int) {
        let document = try PayloadJSON.decode(Document.self, from: data, source: source, line: 1)
        if let type = document.type, type != "waypoints" {
            throw ImportError.unsupportedFormat(file: source, detail: "an OwnTracks \(type) message, not waypoints")
        }
        var regions: [Region] = []
        var withoutRadius = 0
        var names = Set<String>()
        var ids = Set<String>()
        for (i, w) in document.waypoints.enumerated() {
            let field = { (name: String) in "waypoints[\(i)].\(name)" }
            guard let rad = w.rad, rad > 0 else {
                withoutRadius += 1
                continue
            }
            guard let desc = w.desc?.trimmedWhitespace, !desc.isEmpty else {
                throw ImportError.invalidValue(file: source, line: 0, field: field("desc"), value: w.desc ?? "(none)")
            }
            guard let lat = w.lat, let lon = w.lon, Geo.isValidPosition(latitude: lat, longitude: lon) else {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: field("lat, lon"),
                    value: "\(w.lat.map { "\($0)" } ?? "none"), \(w.lon.map { "\($0)" } ?? "none")")
            }
            guard rad <= 1_000_000 else {
                throw ImportError.invalidValue(file: source, line: 0, field: field("rad"), value: "\(rad)")
            }
            let created = w.tst.flatMap { $0.isFinite && abs($0) < 1e11 ? Timestamp(seconds: $0) : nil }
            // OwnTracks' rid when the app gave one; else one made from the region's creation and place.
            let rid =
                w.rid.flatMap { $0.isEmpty || $0.count > 64 ? nil : $0 }
                ?? String(UUID().uuidString.lowercased().prefix(8))
            let name = desc.truncated(to: TextLimit.label)
            guard names.insert(name).inserted else {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: field("desc"), value: "\(desc) (twice in the file)")
            }
            guard ids.insert(rid).inserted else {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: field("rid"), value: "\(rid) (twice in the file)")
            }
            regions.append(
                Region(
                    name: name, latitude: lat, longitude: lon, radius: rad,
                    regionID: rid, created: created ?? Timestamp(seconds: Date().timeIntervalSince1970)))
        }
        return (regions, withoutRadius)
    }
}
