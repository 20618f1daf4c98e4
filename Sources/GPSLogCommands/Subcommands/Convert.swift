// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogFormats
import GPSLogInterchange
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Converts a file between formats without touching the user's database.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert a track file to another format (reads what import reads, writes what export writes).",
            discussion: """
                Your database is not touched, and memory stays flat whatever the file size: GPX to GeoJSON is \
                written while the GPX is parsed; other conversions go through a private temporary file on disk \
                (removed afterwards), which also puts a track that is out of time order back in order.
                """)

        @Argument(help: "Input file.") var input: String
        @Argument(help: "Output file, or - for standard output.") var output: String
        @Option(help: ArgumentHelp("Input format, when the content does not say it.", valueName: ImportFormat.allCases.map(\.rawValue).joined(separator: "|")))
        var from: String?
        @Option(help: ArgumentHelp("Output format (default: from the output file's extension).", valueName: ExportFormat.allCases.map(\.rawValue).joined(separator: "|")))
        var to: String?
        @Option(help: "Simplify tracks with GEOS to this tolerance in metres.") var simplify: Double?
        @Option(help: ArgumentHelp("UTC date for NMEA logs that carry none.", valueName: "YYYY-MM-DD")) var date: String?

        func validate() throws {
            if let from, ImportFormat(rawValue: from) == nil {
                throw ValidationError("--from must be one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if outputFormat == nil {
                throw ValidationError("Say --to \(ExportFormat.allCases.map(\.rawValue).joined(separator: "|")) (the output's extension does not say it).")
            }
            if let date, ImportOptions.parseDate(date) == nil { throw ValidationError("--date must be YYYY-MM-DD, not '\(date)'.") }
            if let simplify, simplify <= 0 || !simplify.isFinite { throw ValidationError("--simplify must be a positive number of metres.") }
        }

        var outputFormat: ExportFormat? {
            to.flatMap(ExportFormat.init(rawValue:)) ?? (to == nil ? ExportFormat.guess(fromPath: output) : nil)
        }

        func run() throws {
            let folder = NSTemporaryDirectory() + "/gpslog-convert-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let progress = ProgressBar(label: "Converting")
            defer { progress.finish() }
            let format = try from.flatMap(ImportFormat.init(rawValue:)) ?? ImportFormat.detect(path: input)
            if format == .gpx {
                // Both fast paths give up on the same thing, a track out of time order: after either, the store sorts.
                let streamed = outputFormat == .geojson && simplify == nil
                if try streamed ? convertAsOneStream(progress: progress) : convertThroughSpool(folder: folder, progress: progress) { return }
            }
            let store = try Store(path: folder + "/convert.sqlite")
            defer { store.close() }
            store.onAppend = { progress.advance(by: $0) }
            var importer = FileImporter()
            importer.nmea.assumedDate = date.flatMap(ImportOptions.parseDate)
            let results = try importer.importFile(input, format: format, into: store)
            try export(results.map(\.session), from: store, progress: progress)
        }

        /// GPX to GeoJSON is written while the GPX is parsed (see `GeoJSONStream`). Returns false when a track is
        /// out of time order, before anything is written.
        private func convertAsOneStream(progress: ProgressBar) throws -> Bool {
            let stream = try GeoJSONStream(path: output)
            stream.onAppend = { progress.advance(by: $0) }
            do {
                _ = try GPXImporter().importFile(input, into: PipelinedImportTarget(stream))
            } catch is GeoJSONStream.NeedsSorting {
                return false
            }
            try stream.finish()
            return true
        }

        /// GPX goes through a spool file rather than SQLite (the fast path; see `TrackSpool`). Returns false when a
        /// track is out of time order, which the SQLite path sorts.
        private func convertThroughSpool(folder: String, progress: ProgressBar) throws -> Bool {
            let spool = try TrackSpool(folder: folder)
            spool.onAppend = { progress.advance(by: $0) }
            let results = try GPXImporter().importFile(input, into: PipelinedImportTarget(spool))
            if spool.needsSorting { return false }
            try export(results.map(\.session), from: spool, progress: progress)
            return true
        }

        private func export(_ sessions: [Session], from source: any SessionSource, progress: ProgressBar) throws {
            // Rows are read (decoded) on a second thread while this one formats them.
            let source = PrefetchingSource(source)
            let exports = try sessions.map { session in
                var export = try SessionExport(store: source, session: session, simplify: simplify)
                export.onEntry = { progress.advance() }
                return export
            }
            try Exporter(format: outputFormat!).export(exports, to: output)
        }
    }
}
