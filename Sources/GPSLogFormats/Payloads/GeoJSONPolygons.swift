// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Polygon regions in a GeoJSON file (RFC 7946): a FeatureCollection of Polygon and MultiPolygon features, one such
/// Feature, or a bare Polygon or MultiPolygon. Read as the file has them: names, ids and rings, every position
/// checked in range. Whether the rings make a valid polygon is GEOS's to say (`PolygonRegions`, GPSLogImportExport).
public enum GeoJSONPolygons {
    /// Longitude and latitude, degrees (GeoJSON's order).
    public typealias Position = (longitude: Double, latitude: Double)
    /// A polygon: its outer ring, then its holes; each ring as the file has it (GeoJSON's rings are closed).
    public typealias Polygon = [[Position]]

    /// One polygon feature of a file.
    public struct Feature {
        /// `features[3] ('Meadow')`: how errors name it.
        public var label: String
        /// `properties.name`, else `desc`, else `title`.
        public var name: String
        /// `properties.rid` (OwnTracks' region id), when it has a usable one.
        public var rid: String?
        /// Its polygons: one, or a MultiPolygon's.
        public var polygons: [Polygon]
        /// A MultiPolygon (else one Polygon).
        public var isMulti: Bool
    }

    /// More features than this is not a file of regions to watch (each one is tested at every fix).
    public static let maxFeatures = 1000
    /// Positions in one feature, its rings' closing ones included: a region drawn by hand has tens, a detailed
    /// outline thousands.
    public static let maxPositions = 100_000

    // MARK: - Reading a file

    /// The polygon features of a GeoJSON file; features of other geometries (a Point, a LineString, none) are
    /// skipped and counted. A bad value is refused naming the feature and field; then nothing is taken.
    public static func features(_ data: Data, source: String) throws -> (features: [Feature], skipped: Int) {
        let document = try PayloadJSON.decode(Document.self, from: data, source: source, line: 0)
        guard document.features.count <= maxFeatures else {
            throw ImportError.unsupportedFormat(
                file: source, detail: "\(document.features.count) features: at most \(maxFeatures) regions a file")
        }
        var features: [Feature] = []
        var skipped = 0
        var names = Set<String>()
        var ids = Set<String>()
        for (i, object) in document.features.enumerated() {
            let path = document.isCollection ? "features[\(i)]" : ""
            let field = { (name: String) in path.isEmpty ? name : path + "." + name }
            guard let geometry = object.geometry, let polygons = geometry.polygons else {
                skipped += 1
                continue
            }
            let name = ["name", "desc", "title"].lazy.compactMap { object.properties[$0]?.trimmedWhitespace }
                .first { !$0.isEmpty }
            guard let name else {
                throw ImportError.invalidRegion(
                    file: source, feature: path.isEmpty ? "the feature" : path,
                    reason: "no name (properties.name, desc or title)")
            }
            let label = "\(path.isEmpty ? "the feature" : path) ('\(name.truncated(to: 80))')"
            let coordinates = field(object.isBareGeometry ? "coordinates" : "geometry.coordinates")
            try check(polygons, isMulti: geometry.type == "MultiPolygon", field: coordinates, source: source)
            let positions = polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
            guard positions <= maxPositions else {
                throw ImportError.invalidRegion(
                    file: source, feature: label, reason: "\(positions) positions: at most \(maxPositions) a region")
            }
            let kept = name.truncated(to: TextLimit.label)
            guard names.insert(kept).inserted else {
                throw ImportError.invalidRegion(file: source, feature: label, reason: "a second region of that name")
            }
            let rid = object.properties["rid"].flatMap { $0.isEmpty || $0.count > 64 ? nil : $0 }
            if let rid, !ids.insert(rid).inserted {
                throw ImportError.invalidValue(
                    file: source, line: 0, field: field("properties.rid"), value: "\(rid) (twice in the file)")
            }
            features.append(
                Feature(
                    label: label, name: kept, rid: rid,
                    polygons: polygons.map { $0.map { $0.map { ($0[0], $0[1]) } } },
                    isMulti: geometry.type == "MultiPolygon"))
        }
        return (features, skipped)
    }

    /// Every position a pair of numbers in range; every ring at least 4 positions, the last the first.
    private static func check(_ polygons: [[[[Double]]]], isMulti: Bool, field: String, source: String) throws {
        guard !polygons.isEmpty else {
            throw ImportError.invalidValue(file: source, line: 0, field: field, value: "[] (no polygon)")
        }
        for (p, rings) in polygons.enumerated() {
            let polygonPath = isMulti ? "\(field)[\(p)]" : field
            guard !rings.isEmpty else {
                throw ImportError.invalidValue(file: source, line: 0, field: polygonPath, value: "[] (no ring)")
            }
            for (r, ring) in rings.enumerated() {
                for (k, position) in ring.enumerated() {
                    guard position.count >= 2, Geo.isValidPosition(latitude: position[1], longitude: position[0])
                    else {
                        throw ImportError.invalidValue(
                            file: source, line: 0, field: "\(polygonPath)[\(r)][\(k)]",
                            value: position.map { "\($0)" }.joined(separator: ", ")
                                + " (longitude from -180 to 180, latitude from -90 to 90)")
                    }
                }
                guard ring.count >= 4, ring.first == ring.last else {
                    throw ImportError.invalidValue(
                        file: source, line: 0, field: "\(polygonPath)[\(r)]",
                        value: "\(ring.count) positions (a ring needs at least 4, the last the same as the first)")
                }
            }
        }
    }

    // MARK: - The stored outline

    /// A geometry as GeoJSON text: what `Region.outline` holds. Numbers are written in full (Swift's shortest form
    /// that reads back the same), so the stored polygon is the one GEOS checked.
    public static func geometryText(_ polygons: [Polygon], isMulti: Bool) -> String {
        func ring(_ positions: [Position]) -> String {
            "[" + positions.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",") + "]"
        }
        func polygon(_ rings: Polygon) -> String { "[" + rings.map(ring).joined(separator: ",") + "]" }
        let coordinates = isMulti ? "[" + polygons.map(polygon).joined(separator: ",") + "]" : polygon(polygons[0])
        return #"{"type":"\#(isMulti ? "MultiPolygon" : "Polygon")","coordinates":\#(coordinates)}"#
    }

    /// Reads a stored outline back (the `Region.outline` of `region`, named in errors).
    public static func geometry(_ text: String, region: String) throws -> (polygons: [Polygon], isMulti: Bool) {
        let source = "the outline of region '\(region)'"
        let geometry = try PayloadJSON.decode(GeometryObject.self, from: Data(text.utf8), source: source, line: 0)
        guard let polygons = geometry.polygons else {
            throw ImportError.unsupportedFormat(file: source, detail: "a \(geometry.type), not a polygon")
        }
        try check(polygons, isMulti: geometry.type == "MultiPolygon", field: "coordinates", source: source)
        return (polygons.map { $0.map { $0.map { ($0[0], $0[1]) } } }, geometry.type == "MultiPolygon")
    }

    /// The corners of the polygons: each ring's positions but its closing one.
    public static func vertexCount(_ polygons: [Polygon]) -> Int {
        polygons.reduce(0) { $0 + $1.reduce(0) { $0 + max($1.count - 1, 0) } }
    }

    // MARK: - Decoding

    /// A FeatureCollection's features; a lone Feature or bare geometry as one.
    struct Document: Decodable {
        var features: [FeatureObject]
        var isCollection: Bool

        private enum Keys: String, CodingKey { case type, features }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            switch try c.decode(String.self, forKey: .type) {
            case "FeatureCollection":
                features = try c.decode([FeatureObject].self, forKey: .features)
                isCollection = true
            case "Feature":
                features = [try FeatureObject(from: decoder)]
                isCollection = false
            default:
                features = [FeatureObject(geometry: try GeometryObject(from: decoder))]
                isCollection = false
            }
        }
    }

    struct FeatureObject: Decodable {
        var geometry: GeometryObject?
        /// The properties that are strings (the others are not read).
        var properties: [String: String] = [:]
        var isBareGeometry = false

        private enum Keys: String, CodingKey { case type, geometry, properties }

        init(geometry: GeometryObject) {
            self.geometry = geometry
            isBareGeometry = true
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            let type = try c.decode(String.self, forKey: .type)
            guard type == "Feature" else {
                throw DecodingError.dataCorruptedError(
                    forKey: .type, in: c, debugDescription: "a \(type), not a Feature")
            }
            geometry = try c.decodeIfPresent(GeometryObject.self, forKey: .geometry)
            let all = try c.decodeIfPresent([String: Property].self, forKey: .properties) ?? [:]
            properties = all.compactMapValues(\.text)
        }
    }

    /// A property's value when it is a string.
    struct Property: Decodable {
        var text: String?
        init(from decoder: any Decoder) throws { text = try? decoder.singleValueContainer().decode(String.self) }
    }

    /// A geometry; its coordinates are read for a Polygon or MultiPolygon only (a Polygon as a one-part list).
    struct GeometryObject: Decodable {
        var type: String
        var polygons: [[[[Double]]]]?

        private enum Keys: String, CodingKey { case type, coordinates }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            type = try c.decode(String.self, forKey: .type)
            switch type {
            case "Polygon": polygons = [try c.decode([[[Double]]].self, forKey: .coordinates)]
            case "MultiPolygon": polygons = try c.decode([[[[Double]]]].self, forKey: .coordinates)
            default: polygons = nil
            }
        }
    }
}
