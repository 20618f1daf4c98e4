// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline

/// A file of regions as `gpslog region import` reads it, its kind told by its content (`RegionFileKind`): OwnTracks'
/// waypoints export, whose waypoints with a radius are circles, or GeoJSON polygons, checked with GEOS
/// (`PolygonRegions`). All or nothing: a bad region refuses the file.
public enum RegionFile {
    /// The regions, and what was skipped: waypoints without a radius, features that are not polygons.
    public struct Contents {
        /// What the file was: OwnTracks' waypoints export or GeoJSON.
        public var kind: RegionFileKind
        /// The regions read from the file.
        public var regions: [Region]
        /// Waypoints without a radius, or features that are not polygons, left out.
        public var skipped: Int
    }

    /// The largest file read: a thousand detailed outlines. OwnTracks' waypoints exports are a few kilobytes.
    public static let maxSize = 16 << 20

    /// Reads the file at `path` (at most `maxSize` bytes: a larger one, or a pipe that goes on, is refused).
    public static func read(path: String) throws -> Contents {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.unreadable(file: path, reason: "no such readable file")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxSize + 1) ?? Data()
        } catch {
            throw ImportError.unreadable(file: path, reason: (error as NSError).localizedDescription)
        }
        guard data.count <= maxSize else {
            throw ImportError.unsupportedFormat(file: path, detail: "larger than 16 MB: not a file of regions")
        }
        return try read(data, source: path)
    }

    /// Reads `data`, named `source` in errors; polygon regions are made at `created` (OwnTracks' waypoints carry
    /// their own time).
    public static func read(
        _ data: Data, source: String, created: Timestamp = Timestamp(seconds: Date().timeIntervalSince1970)
    ) throws -> Contents {
        switch try RegionFileKind.detect(data, source: source) {
        case .ownTracksWaypoints:
            let (regions, withoutRadius) = try OwnTracksWaypoints.regions(data, source: source)
            return Contents(kind: .ownTracksWaypoints, regions: regions, skipped: withoutRadius)
        case .geoJSON:
            let (features, skipped) = try GeoJSONPolygons.features(data, source: source)
            let regions = try PolygonRegions.regions(features, source: source, created: created)
            return Contents(kind: .geoJSON, regions: regions, skipped: skipped)
        }
    }
}
