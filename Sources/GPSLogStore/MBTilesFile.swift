// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite

/// A user's MBTiles file of raster tiles (MBTiles 1.3: a SQLite database with a `tiles` table and a `metadata`
/// table), read for the web view's basemap. Opened read-only: nothing is ever written to it.
///
/// Safe from several request tasks at once: each reader (a connection and its one prepared statement, reused for
/// every tile) serves one caller at a time, taken from a small pool under a lock and given back after; the pool
/// grows to as many readers as callers ever came at once (NIO's blocking pool has a thread per core).
///
/// Related specification: <https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md>
public final class MBTilesFile: @unchecked Sendable {
    // @unchecked Sendable: `idle` is touched only under `lock`, and a reader by the one caller that took it.
    private let lock = NSLock()
    private var idle: [Reader] = []

    /// The file, as given.
    public let path: String
    /// What its `metadata` table says (minzoom and maxzoom from the tiles when it says none).
    public let metadata: Metadata

    /// The deepest zoom a tile address may have: 2^30 tiles a side is past any real file, and keeps `x`, `y` and
    /// the flipped row within 32-bit integers.
    public static let maxZoom = 30

    /// The tile image formats a browser shows, as `metadata`'s `format` names them.
    public enum Format: String, Sendable, Equatable {
        case png, jpg, webp

        /// The HTTP Content-Type of a tile.
        public var contentType: String {
            switch self {
            case .png: "image/png"
            case .jpg: "image/jpeg"
            case .webp: "image/webp"
            }
        }
    }

    /// The `metadata` rows the view uses.
    public struct Metadata: Sendable, Equatable {
        /// `name`: the tileset's name.
        public var name: String?
        /// `format`, or what the first tile's bytes are when the table names none.
        public var format: Format
        /// `bounds`: west, south, east, north in degrees.
        public var bounds: [Double]?
        /// `minzoom`, or the tiles' shallowest zoom when the table has none.
        public var minZoom: Int?
        /// `maxzoom`, or the tiles' deepest zoom when the table has none.
        public var maxZoom: Int?
        /// `attribution`: HTML by the specification, from the file: to be sanitized before a page shows it.
        public var attribution: String?
    }

    /// Opens `path`, checks it is an MBTiles file of raster tiles, and reads its metadata.
    /// - Throws: `MBTilesError` naming the file and what is wrong with it.
    public init(path: String) throws(MBTilesError) {
        self.path = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw .noSuchFile(path) }
        guard !isFolder.boolValue else { throw .notMBTiles(path, reason: "it is a folder") }
        let reader = try Self.reader(path)
        metadata = try Self.readMetadata(reader.database, path: path)
        idle = [reader]
    }

    /// The tile at zoom `z`, column `x` and row `y` counted from the north (the XYZ scheme Leaflet asks in); nil
    /// when the file has none there. The file counts rows from the south (TMS): row = 2^z - 1 - y.
    /// - Precondition: `z` in 0...`maxZoom`, `x` and `y` in 0..<2^z.
    public func tile(z: Int, x: Int, y: Int) throws(MBTilesError) -> [UInt8]? {
        precondition((0...Self.maxZoom).contains(z) && (0..<(1 << z)).contains(x) && (0..<(1 << z)).contains(y))
        let reader = try take()
        defer { giveBack(reader) }
        let s = reader.statement
        defer { s.reset() }
        do {
            try s.bind(Int64(z), at: 1)
            try s.bind(Int64(x), at: 2)
            try s.bind(Int64((1 << z) - 1 - y), at: 3)
            guard try s.step() else { return nil }
        } catch {
            throw .unreadable(path, reason: (error as? SQLiteError)?.message ?? "\(error)")
        }
        return s.withBlob(at: 0) { Array($0) } ?? s.string(at: 0).map { Array($0.utf8) }
    }

    // MARK: - Readers

    /// A connection of its own and its prepared tile query.
    final class Reader {
        let database: Database
        let statement: Statement
        init(database: Database, statement: Statement) {
            self.database = database
            self.statement = statement
        }
    }

    static let tileQuery = "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?"

    private func take() throws(MBTilesError) -> Reader {
        if let reader = lock.withLock({ idle.popLast() }) { return reader }
        return try Self.reader(path)
    }

    private func giveBack(_ reader: Reader) { lock.withLock { idle.append(reader) } }

    /// A read-only connection to `path` with the tile query prepared; the errors say what the file is instead.
    static func reader(_ path: String) throws(MBTilesError) -> Reader {
        let database: Database
        do { database = try Database(path: path, mode: .readOnly) } catch {
            throw .unreadable(path, reason: (error as? SQLiteError)?.message ?? "\(error)")
        }
        let tables: [String: String]
        do {
            // SQLite reads the file's header only now: a file that is no database fails here.
            let s = try database.makeStatement("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
            var found: [String: String] = [:]
            while try s.step() { found[s.string(at: 0) ?? ""] = s.string(at: 1) ?? "" }
            tables = found
        } catch let error as SQLiteError where error.isCorruptFile {
            throw .notMBTiles(path, reason: "it is not a SQLite database")
        } catch {
            throw .unreadable(path, reason: (error as? SQLiteError)?.message ?? "\(error)")
        }
        guard tables["tiles"] != nil else {
            let names = tables.keys.sorted().prefix(8).map { $0.visible }
            throw .notMBTiles(
                path,
                reason: "it has no `tiles` table"
                    + (names.isEmpty ? " (no table at all)" : " (its tables: \(names.joined(separator: ", ")))"))
        }
        do {
            return Reader(database: database, statement: try database.makeStatement(tileQuery))
        } catch {
            throw .notMBTiles(
                path,
                reason:
                    "its `tiles` table lacks the columns zoom_level, tile_column, tile_row and tile_data (\((error as? SQLiteError)?.message ?? "\(error)"))"
            )
        }
    }

    // MARK: - Metadata

    static func readMetadata(_ database: Database, path: String) throws(MBTilesError) -> Metadata {
        var rows: [String: String] = [:]
        do {
            if try database.scalar("SELECT 1 FROM sqlite_master WHERE name = 'metadata'") != nil {
                let s = try database.makeStatement("SELECT name, value FROM metadata")
                while try s.step() {
                    if let name = s.string(at: 0) { rows[name.lowercased()] = s.string(at: 1) }
                }
            }
        } catch {
            throw .notMBTiles(
                path,
                reason:
                    "its `metadata` table cannot be read as name and value (\((error as? SQLiteError)?.message ?? "\(error)"))"
            )
        }
        func field(_ name: String) -> String? {
            rows[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        func zoom(_ name: String) throws(MBTilesError) -> Int? {
            guard let text = field(name) else { return nil }
            guard let z = Int(text), (0...maxZoom).contains(z) else {
                throw .badMetadata(path, field: name, value: text, expected: "a zoom level from 0 to \(maxZoom)")
            }
            return z
        }
        var metadata = Metadata(
            name: field("name"), format: .png, bounds: nil, minZoom: try zoom("minzoom"), maxZoom: try zoom("maxzoom"),
            attribution: field("attribution"))
        if let text = field("format") {
            switch text.lowercased() {
            case "png": metadata.format = .png
            case "jpg", "jpeg": metadata.format = .jpg
            case "webp": metadata.format = .webp
            case "pbf", "mvt":
                throw .badMetadata(
                    path, field: "format", value: text,
                    expected: "raster tiles (png, jpg or webp): this file holds vector tiles, which the map cannot draw"
                )
            default:
                throw .badMetadata(path, field: "format", value: text, expected: "png, jpg or webp")
            }
        } else {
            metadata.format = try sniffedFormat(database, path: path)
        }
        if let text = field("bounds") {
            let numbers = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4, numbers.count == text.split(separator: ",").count,
                (-180...180).contains(numbers[0]), (-180...180).contains(numbers[2]),
                (-90...90).contains(numbers[1]), (-90...90).contains(numbers[3]), numbers[1] <= numbers[3]
            else {
                throw .badMetadata(
                    path, field: "bounds", value: text,
                    expected: "west,south,east,north in degrees (e.g. -180,-85.05,180,85.05)")
            }
            metadata.bounds = numbers
        }
        if metadata.minZoom == nil || metadata.maxZoom == nil {
            // The index MBTiles files have on (zoom_level, tile_column, tile_row) answers both at once.
            let range = try? database.makeStatement("SELECT min(zoom_level), max(zoom_level) FROM tiles")
            if let range, (try? range.step()) == true {
                metadata.minZoom = metadata.minZoom ?? range.int(at: 0)
                metadata.maxZoom = metadata.maxZoom ?? range.int(at: 1)
            }
        }
        if let low = metadata.minZoom, let high = metadata.maxZoom, low > high {
            throw .badMetadata(
                path, field: "minzoom", value: String(low), expected: "at most maxzoom (\(high))")
        }
        return metadata
    }

    /// The format of the first tile's bytes, for a file whose metadata names none.
    static func sniffedFormat(_ database: Database, path: String) throws(MBTilesError) -> Format {
        let first = try? database.scalar("SELECT tile_data FROM tiles LIMIT 1")
        guard case .blob(let bytes) = first else {
            throw .badMetadata(path, field: "format", value: "", expected: "png, jpg or webp (the file has no tiles)")
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpg }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        throw .badMetadata(
            path, field: "format", value: "",
            expected: "png, jpg or webp (no format row, and the first tile is none of them)")
    }
}

/// What is wrong with a file given as `serve --tiles FILE`.
public enum MBTilesError: LocalizedError, Equatable {
    /// No file at the path.
    case noSuchFile(String)
    /// The file is no MBTiles file: `reason` says what it is instead.
    case notMBTiles(String, reason: String)
    /// A `metadata` row holds a value the view cannot use.
    case badMetadata(String, field: String, value: String, expected: String)
    /// SQLite could not open or read it.
    case unreadable(String, reason: String)

    /// What is wrong, naming the file, and what to do.
    public var errorDescription: String? {
        let help = "give an MBTiles file of raster tiles (see docs/web-view.md, Offline maps), a URL template, or none"
        switch self {
        case .noSuchFile(let path):
            return
                "--tiles \(path.visible): no such file; \(help) (a tile server is an http(s) URL with {z}, {x} and {y})."
        case .notMBTiles(let path, let reason):
            return "--tiles \(path.visible) is not an MBTiles file: \(reason.visible); \(help)."
        case .badMetadata(let path, let field, let value, let expected):
            let shown = value.isEmpty ? "none" : "'\(String(value.prefix(80)).visible)'"
            return "--tiles \(path.visible): metadata \(field) is \(shown), expected \(expected)."
        case .unreadable(let path, let reason):
            return "--tiles \(path.visible) cannot be read: \(reason.visible). Check the path and its permissions."
        }
    }
}
