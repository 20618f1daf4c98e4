// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGEOS
import GPSLogModel

/// The nearest populated place from a GeoNames dump in the `cities1000.txt` layout (tab-separated: id, name,
/// ascii name, alternate names, latitude, longitude, feature class, feature code, country code, ..., admin1,
/// ..., population, ...). The file is read once into a grid of 1-degree cells, so a lookup scans only the cells
/// around the point. Answers "Name, CC" (with a distance when the place is more than 2 km away), or none beyond
/// `maxDistance`.
public final class GeoNamesGeocoder: OfflineGeocoder, @unchecked Sendable {
    // @unchecked: immutable after init.
    struct Place {
        let name: String
        let country: String
        let latitude: Double
        let longitude: Double
    }
    private let grid: [Int: [Place]]
    public let cacheKey: String
    /// Farther than this, the answer is "none" (the open sea).
    public let maxDistance: Double

    public init(path: String, maxDistance: Double = 50_000) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw GeocodeFailure.setup("cannot read the GeoNames file \(path)")
        }
        var grid: [Int: [Place]] = [:]
        var lineNumber = 0
        for line in text.split(whereSeparator: \.isNewline) {
            lineNumber += 1
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count >= 9, let lat = Double(f[4]), let lon = Double(f[5]),
                Geo.isValidPosition(latitude: lat, longitude: lon)
            else {
                throw GeocodeFailure.setup(
                    "\(path):\(lineNumber): not the GeoNames cities layout (id, name, ascii name, alternate names, latitude, longitude, ...)"
                )
            }
            let place = Place(name: String(f[1]), country: String(f[8]), latitude: lat, longitude: lon)
            grid[GeoNamesGeocoder.cell(lat, lon), default: []].append(place)
        }
        self.grid = grid
        self.maxDistance = maxDistance
        cacheKey = "geonames:" + (path as NSString).lastPathComponent
    }

    static func cell(_ lat: Double, _ lon: Double) -> Int {
        Int((lat + 90).rounded(.down)) * 1000 + Int((lon + 180).rounded(.down))
    }

    public func answer(latitude: Double, longitude: Double, language: String) throws -> GeocodeAnswer {
        var best: (Place, Double)?
        let la = Int((latitude + 90).rounded(.down))
        let lo = Int((longitude + 180).rounded(.down))
        for dy in -1...1 {
            for dx in -1...1 {
                for p in grid[(la + dy) * 1000 + ((lo + dx + 360) % 360)] ?? [] {
                    let d = Geo.distance(lat1: latitude, lon1: longitude, lat2: p.latitude, lon2: p.longitude)
                    if best == nil || d < best!.1 { best = (p, d) }
                }
            }
        }
        guard let (place, distance) = best, distance <= maxDistance else { return .none }
        let name = "\(place.name), \(place.country)"
        return .address(distance > 2000 ? "\(Int((distance / 1000).rounded())) km from \(name)" : name)
    }
}

/// Named polygons from a GeoJSON FeatureCollection (`properties.name`), found by point-in-polygon with GEOS: an
/// STRtree of prepared geometries. When several regions contain the point, the smallest-area-first order of the
/// file is not assumed: all names are joined, innermost (listed last) first.
public final class RegionsGeocoder: OfflineGeocoder, @unchecked Sendable {
    // @unchecked: the GEOS context and index are only used under `lock` (GEOS contexts are single-threaded).
    private let lock = NSLock()
    private let context: GEOSContext
    private let index: PreparedIndex<String>
    public let cacheKey: String

    /// Loads regions from GeoJSON text; `name` identifies them in the cache.
    public init(geoJSON: String, name: String) throws {
        guard let root = try? JSONSerialization.jsonObject(with: Data(geoJSON.utf8)) as? [String: Any],
            let features = root["features"] as? [[String: Any]]
        else { throw GeocodeFailure.setup("\(name): not a GeoJSON FeatureCollection") }
        context = try GEOSContext()
        var entries: [(geometry: Geometry, item: String)] = []
        for (i, feature) in features.enumerated() {
            guard let geometry = feature["geometry"], let props = feature["properties"] as? [String: Any],
                let regionName = props["name"] as? String
            else { throw GeocodeFailure.setup("\(name): feature \(i) has no geometry or no properties.name") }
            let json = String(decoding: try JSONSerialization.data(withJSONObject: geometry), as: UTF8.self)
            entries.append((try Geometry.fromGeoJSON(json, context: context), regionName))
        }
        index = try PreparedIndex(entries, context: context)
        cacheKey = "regions:" + name
    }

    public convenience init(path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw GeocodeFailure.setup("cannot read the regions file \(path)")
        }
        try self.init(geoJSON: text, name: (path as NSString).lastPathComponent)
    }

    public func answer(latitude: Double, longitude: Double, language: String) throws -> GeocodeAnswer {
        let names = try lock.withLock { try index.items(containingX: longitude, y: latitude) }
        return names.isEmpty ? .none : .address(names.reversed().joined(separator: ", "))
    }
}
