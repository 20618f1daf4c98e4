// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports any supported file.
public struct FileImporter {
    /// Names, `--merge`, `--routes`, and where notes about a file go (GPX, GeoJSON, CSV, KML, TCX and OwnTracks; the
    /// other formats take the name only).
    public var options = TrackImportOptions()
    /// The importer of NMEA logs: its sampling policy, and the date for logs that carry none.
    public var nmea = NMEAImporter()
    /// The trip mode given to an NMEA log's session (`import --mode`); the other formats ignore it.
    public var mode: TripMode?
    /// The zone GPS Log's local times were written in.
    public var timeZone: TimeZone = .current

    /// The name of every session made (default: the track's or the file's).
    public var name: String? {
        get { options.name }
        set { options.name = newValue }
    }

    /// An importer with the defaults above.
    public init() {}

    /// Imports `path`, one transaction for the file; returns the sessions made.
    public func importFile(_ path: String, format: ImportFormat? = nil, into store: Store) throws -> [ImportResult] {
        let format = try format ?? ImportFormat.detect(path: path)
        noteSplit(format)
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let importer: any NamedImporter
        switch format {
        case .nmea: return [try nmea.importFile(path, name: name ?? stem, mode: mode, into: store)]
        case .gpx, .geojson, .csv, .google, .kml, .kmz, .tcx:
            return try trackImport(path, format: format, into: PipelinedSink(store))
        case .xml: importer = SessionXMLImporter()
        case .overland: importer = OverlandImporter()
        case .owntracks:
            var i = OwnTracksImporter()
            i.notes = options.notes
            importer = i
        case .gpslogdb:
            var i = GPSLogDatabaseImporter()
            i.timeZone = timeZone
            importer = i
        }
        return try importer.named(name).importFile(path, into: store)
    }

    /// Imports `path` into another sink than the SQLite store (`import --postgres`): NMEA and the track formats.
    /// The other formats are read through the SQLite store only (`sync` pushes them on).
    public func importFile(_ path: String, format: ImportFormat? = nil, into sink: any SessionSink) throws
        -> [ImportResult]
    {
        let format = try format ?? ImportFormat.detect(path: path)
        noteSplit(format)
        switch format {
        case .nmea:
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            return [try nmea.importFile(path, name: name ?? stem, mode: mode, into: sink)]
        case .gpx, .geojson, .csv, .google, .kml, .kmz, .tcx:
            return try trackImport(path, format: format, into: PipelinedSink(sink))
        case .xml, .overland, .owntracks, .gpslogdb:
            throw ImportError.unsupportedFormat(
                file: path,
                detail:
                    "\(format.rawValue) files are imported into the SQLite database only: import it without --postgres, then push it with gpslog sync"
            )
        }
    }

    /// GPX, GeoJSON, CSV, KML (and KMZ) and TCX into any target.
    private func trackImport(_ path: String, format: ImportFormat, into target: any SessionSink) throws
        -> [ImportResult]
    {
        switch format {
        case .gpx: return try GPXImporter(options: options).importFile(path, into: target)
        case .geojson: return try GeoJSONImporter(options: options).importFile(path, into: target)
        case .google: return try GoogleLocationImporter(options: options).importFile(path, into: target)
        case .kml, .kmz: return try KMLImporter(options: options).importFile(path, into: target)
        case .tcx: return try TCXImporter(options: options).importFile(path, into: target)
        default: return try CSVImporter(options: options).importFile(path, into: target)
        }
    }

    private func noteSplit(_ format: ImportFormat) {
        if options.splitByDay != nil && format != .google {
            options.notes("--split-by is for Google location history; this file is imported as usual")
        }
    }

    /// What importing `path` would make, with nothing written: the track formats are read into a `DryRunTarget`
    /// (no database at all); the other formats are imported into a scratch database in a private temporary
    /// folder, removed afterwards, and counted there.
    public func dryRun(_ path: String, format: ImportFormat? = nil) throws -> [PlannedSession] {
        let format = try format ?? ImportFormat.detect(path: path)
        if [.gpx, .geojson, .csv, .google, .kml, .kmz, .tcx].contains(format) {
            noteSplit(format)
            let target = DryRunTarget()
            let results = try trackImport(path, format: format, into: target)
            return results.compactMap { target.planned(id: $0.session.id) }
        }
        let folder = NSTemporaryDirectory() + "/gpslog-dry-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/dry-run.sqlite")
        defer { store.close() }
        return try importFile(path, format: format, into: store).map { result in
            let s = try store.summary(of: result.session)
            return PlannedSession(
                name: result.session.name, points: s.trackPointCount, marks: s.markCount,
                headings: s.headingChangeCount, start: s.session.start, end: s.session.end)
        }
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

extension SessionXMLImporter: NamedImporter {}
extension OverlandImporter: NamedImporter {}
extension OwnTracksImporter: NamedImporter {}
extension GPSLogDatabaseImporter: NamedImporter {}
