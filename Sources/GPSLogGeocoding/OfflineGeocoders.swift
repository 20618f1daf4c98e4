// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGEOS
import GPSLogModel

/// The nearest populated place from a GeoNames dump in the `cities1000.txt` layout (see `PlaceTable`), indexed
/// in memory the way `places:world` is on disk, so a lookup scans only the cells around the point. Answers
/// "Name, CC" (GeoNames' admin1 is a code, not a name), with a distance beyond 2 km, or none beyond `maxDistance`.
public final class GeoNamesGeocoder: OfflineGeocoder {
    private let places: PlacesGeocoder
    /// `geonames:` and the file's name.
    public let cacheKey: String
    /// Farther than this, the answer is "none" (the open sea).
    public var maxDistance: Double { places.maxDistance }

    /// Reads and indexes the GeoNames table at `path` (`maxDistance` in metres); throws `GeocodeFailure.setup`.
    public init(path: String, maxDistance: Double = 50_000) throws {
        do {
            let table = try PlaceTable.read(path: path)
            let index = try PlacesIndex(
                bytes: try PlacesIndex.build(table.rows, source: path), origin: path)
            var places = PlacesGeocoder(index: index, name: (path as NSString).lastPathComponent)
            places.maxDistance = maxDistance
            self.places = places
        } catch let error as PlacesError {
            throw GeocodeFailure.setup(error.localizedDescription)
        }
        cacheKey = "geonames:" + (path as NSString).lastPathComponent
    }

    /// The nearest place: see `PlacesGeocoder.answer(latitude:longitude:language:)`.
    public func answer(latitude: Double, longitude: Double, language: String) throws -> GeocodeAnswer {
        try places.answer(latitude: latitude, longitude: longitude, language: language)
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
    /// `regions:` and the name given.
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

    /// Loads regions from the GeoJSON file at `path`; its file name names them in the cache.
    public convenience init(path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw GeocodeFailure.setup("cannot read the regions file \(path)")
        }
        try self.init(geoJSON: text, name: (path as NSString).lastPathComponent)
    }

    /// The names of the regions that hold the point, innermost first, joined by ", "; `.none` outside them all.
    public func answer(latitude: Double, longitude: Double, language: String) throws -> GeocodeAnswer {
        let names = try lock.withLock { try index.items(containingX: longitude, y: latitude) }
        return names.isEmpty ? .none : .address(names.reversed().joined(separator: ", "))
    }
}
