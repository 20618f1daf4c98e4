// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogSystem

/// The formats `import` and `convert` read, told apart by content (not by file name).
public enum ImportFormat: String, CaseIterable, Sendable {
    case nmea, gpx, xml, overland, owntracks, gpslogdb

    /// Looks at the first 4 KiB of a file.
    public static func detect(path: String) throws -> ImportFormat {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.unreadable(file: path, reason: SystemCallError(code: errno).reason)
        }
        defer { try? handle.close() }
        let head = handle.readData(ofLength: 4096)
        if head.starts(with: Array("SQLite format 3\0".utf8)) { return .gpslogdb }
        let text = String(decoding: head, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("<") {
            if text.contains("urn:gpslog:sessions") { return .xml }
            if text.contains("<gpx") { return .gpx }
            throw ImportError.unsupportedFormat(
                file: path, detail: "XML that is neither GPX nor a gpslog session export")
        }
        if trimmed.hasPrefix("{") {
            if text.contains("\"locations\"") { return .overland }
            if text.contains("\"_type\"") { return .owntracks }
            throw ImportError.unsupportedFormat(
                file: path, detail: "JSON that is neither an Overland batch nor OwnTracks messages")
        }
        // OwnTracks Recorder .rec: "2024-03-01T09:03:09Z<TAB>*...<TAB>{...}" (older files pad with spaces).
        if let first = trimmed.split(separator: "\n").first, first.count > 21, first.contains("{"),
            Timestamp(iso8601: first.prefix(20)) != nil
        {
            return .owntracks
        }
        if trimmed.hasPrefix("$") || trimmed.hasPrefix("!") || trimmed.hasPrefix("#") { return .nmea }
        throw ImportError.unsupportedFormat(
            file: path,
            detail:
                "not a format gpslog reads (NMEA 0183, GPX 1.0/1.1, gpslog XML, Overland batch JSON, OwnTracks JSON lines or .rec)"
        )
    }
}

/// Imports any supported file.
public struct FileImporter {
    public var name: String?
    public var nmea = NMEAImporter()
    public var mode: TripMode?
    /// The zone GPS Log's local times were written in.
    public var timeZone: TimeZone = .current

    public init() {}

    /// Imports `path`, one transaction for the file; returns the sessions made.
    public func importFile(_ path: String, format: ImportFormat? = nil, into store: Store) throws -> [ImportResult] {
        let format = try format ?? ImportFormat.detect(path: path)
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let importer: any NamedImporter
        switch format {
        case .nmea: return [try nmea.importFile(path, name: name ?? stem, mode: mode, into: store)]
        case .gpx: importer = GPXImporter()
        case .xml: importer = SessionXMLImporter()
        case .overland: importer = OverlandImporter()
        case .owntracks: importer = OwnTracksImporter()
        case .gpslogdb:
            var i = GPSLogDatabaseImporter()
            i.timeZone = timeZone
            importer = i
        }
        return try importer.named(name).importFile(path, into: store)
    }
}

/// An importer of one file format, which may be told the name of the sessions it makes.
protocol NamedImporter {
    var name: String? { get set }
    func importFile(_ path: String, into store: Store) throws -> [ImportResult]
}

extension NamedImporter {
    /// A copy with `name` set, when one is given.
    func named(_ name: String?) -> any NamedImporter {
        var copy = self
        if let name { copy.name = name }
        return copy
    }
}

extension GPXImporter: NamedImporter {}
extension SessionXMLImporter: NamedImporter {}
extension OverlandImporter: NamedImporter {}
extension OwnTracksImporter: NamedImporter {}
extension GPSLogDatabaseImporter: NamedImporter {}
