// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// `gpslog convert`: a file in a format `import` reads to a file in a format `export` writes, without the user's
/// database. Memory stays flat whatever the file size: GPX to GeoJSON is written while the GPX is parsed
/// (`GeoJSONStream`); other GPX conversions go through a spool file (`TrackSpool`); a track out of time order, and
/// every other input format, through a temporary store, which sorts. All scratch files live in a private folder
/// that is removed afterwards.
public struct Conversion {
    /// The file to read.
    public let input: String
    /// The destination, or "-" for standard output.
    public let output: String
    /// The format to write.
    public let outputFormat: ExportFormat
    /// The input's format; nil: told by its content.
    public var inputFormat: ImportFormat?
    /// Simplify tracks with GEOS to this tolerance in metres.
    public var simplify: Double?
    /// The date for NMEA logs that carry none.
    public var assumedDate: (year: Int, month: Int, day: Int)?
    /// How a GPX, GeoJSON or CSV file's tracks make sessions (`--merge`, `--routes`), and where notes go.
    public var options = TrackImportOptions()

    /// Converts `input` to `output` in `outputFormat`; the other settings start at their defaults (nil: none).
    public init(input: String, output: String, to outputFormat: ExportFormat) {
        self.input = input
        self.output = output
        self.outputFormat = outputFormat
    }

    /// Converts. `progress` is called with the number of entries read or written since its last call.
    public func run(progress: @escaping (Int) -> Void) throws {
        let folder = NSTemporaryDirectory() + "/gpslog-convert-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let format = try inputFormat ?? ImportFormat.detect(path: input)
        var options = self.options
        let notes = NoteFilter(options.notes)
        options.notes = { notes.say($0) }  // once, though a fast path that gives up reads the file again
        if format == .gpx {
            // Both fast paths give up on the same thing, a track out of time order: after either, the store sorts.
            let streamed = outputFormat == .geojson && simplify == nil
            if try streamed
                ? convertAsOneStream(options, progress: progress)
                : convertThroughSpool(options, folder: folder, progress: progress)
            {
                return
            }
        }
        let store = try Store(path: folder + "/convert.sqlite")
        defer { store.close() }
        store.onAppend = progress
        var importer = FileImporter()
        importer.options = options
        importer.nmea.assumedDate = assumedDate
        let results = try importer.importFile(input, format: format, into: store)
        try export(results.map(\.session), from: store, progress: progress)
    }

    /// GPX to GeoJSON is written while the GPX is parsed (see `GeoJSONStream`). Returns false when a track is
    /// out of time order, before anything is written.
    private func convertAsOneStream(_ options: TrackImportOptions, progress: @escaping (Int) -> Void) throws -> Bool {
        let stream = try GeoJSONStream(path: output)
        stream.onAppend = progress
        do {
            _ = try GPXImporter(options: options).importFile(input, into: PipelinedSink(stream))
        } catch is GeoJSONStream.NeedsSorting {
            return false
        }
        try stream.finish()
        return true
    }

    /// GPX goes through a spool file rather than SQLite (the fast path; see `TrackSpool`). Returns false when a
    /// track is out of time order, which the SQLite path sorts.
    private func convertThroughSpool(_ options: TrackImportOptions, folder: String, progress: @escaping (Int) -> Void)
        throws -> Bool
    {
        let spool = try TrackSpool(folder: folder)
        spool.onAppend = progress
        let results = try GPXImporter(options: options).importFile(input, into: PipelinedSink(spool))
        if spool.needsSorting { return false }
        try export(results.map(\.session), from: spool, progress: progress)
        return true
    }

    private func export(_ sessions: [Session], from source: any SessionSource, progress: @escaping (Int) -> Void) throws
    {
        // Rows are read (decoded) on a second thread while this one formats them.
        let source = PrefetchingSource(source)
        let exports = try sessions.map { session in
            var export = try SessionExport(store: source, session: session, simplify: simplify)
            export.onEntry = { progress(1) }
            return export
        }
        try Exporter(format: outputFormat).export(exports, to: output)
    }
}

/// Says each note once.
private final class NoteFilter {
    private let say: (String) -> Void
    private var said: Set<String> = []

    init(_ say: @escaping (String) -> Void) { self.say = say }

    func say(_ text: String) {
        if said.insert(text).inserted { say(text) }
    }
}
