// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Exports sessions.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export sessions as XML, GPX 1.1, GeoJSON, Overland batches, OwnTracks, CSV or KML.",
            discussion: """
                Output streams (memory stays flat whatever the session size) into a private file (0600) that \
                appears whole or not at all. Overland batches past the first go to numbered files \
                (track-0002.json, ...), or one per line on stdout. rec is the OwnTracks Recorder layout. Without --format, \
                the output file's extension says the format, and standard output gets GPX.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Sessions: names, ids or unique id prefixes.") var sessions: [String]
        @Option(
            name: .long,
            help: ArgumentHelp("Format.", valueName: ExportFormat.allCases.map(\.rawValue).joined(separator: "|")))
        var format: String?
        @Option(name: [.short, .long], help: "Output file, or - for standard output.") var output: String = "-"
        @Option(help: "Only entries at or after this time (ISO 8601).") var from: String?
        @Option(help: "Only entries at or before this time (ISO 8601).") var to: String?
        @Option(help: "Simplify the track with GEOS to this tolerance in metres (marks, first and last point kept).")
        var simplify: Double?
        @Option(help: "Locations per Overland batch (50 to 1000).") var batchSize: Int = 200
        @Option(help: "Overland device_id, or OwnTracks user/device for the topic.") var deviceID: String?

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if sessions.isEmpty { throw ValidationError("Name at least one session to export.") }
            if resolvedFormat == nil {
                throw ValidationError(
                    "Say --format \(ExportFormat.allCases.map(\.rawValue).joined(separator: "|")) (or use a file name whose extension says it)."
                )
            }
            if !(50...1000).contains(batchSize) { throw ValidationError("--batch-size must be from 50 to 1000.") }
            if let from, Timestamp(iso8601: from) == nil {
                throw ValidationError("--from must be ISO 8601, e.g. 2026-05-01T08:00:00Z.")
            }
            if let to, Timestamp(iso8601: to) == nil {
                throw ValidationError("--to must be ISO 8601, e.g. 2026-05-01T18:00:00Z.")
            }
            if let simplify, simplify <= 0 || !simplify.isFinite {
                throw ValidationError("--simplify must be a positive number of metres.")
            }
        }

        /// --format, else the output file's extension, else GPX on standard output (as other GPS tools do).
        var resolvedFormat: ExportFormat? {
            guard let format else { return output == "-" ? .gpx : ExportFormat.guess(fromPath: output) }
            return ExportFormat(rawValue: format)
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let resolved = try sessions.map { try store.resolveSession($0) }
            let total = try resolved.map { try store.entryCount(of: $0.id) }.reduce(0, +)
            // KML reads each session twice (extent, then coordinates).
            let passes = resolvedFormat == .kml ? 2 : 1
            let progress = ProgressBar(label: "Exporting", total: total * passes)
            defer { progress.finish() }
            // Rows are read on a second thread while this one formats them.
            let source = PrefetchingSource(store)
            let exports = try resolved.map { session in
                var export = try SessionExport(
                    store: source, session: session, from: from.flatMap { Timestamp(iso8601: $0) },
                    to: to.flatMap { Timestamp(iso8601: $0) }, simplify: simplify)
                export.onEntry = { progress.advance() }
                return export
            }
            // A simplified export reads only the rows it writes.
            let kept = exports.compactMap(\.keptTrackPointCount)
            if kept.count == exports.count { progress.total = kept.reduce(0, +) * passes }
            var exporter = Exporter(format: resolvedFormat!)
            exporter.batchSize = batchSize
            exporter.deviceID = deviceID
            let paths = try exporter.export(exports, to: output)
            progress.finish()
            if output != "-" {
                print(
                    "Wrote \(paths.count == 1 ? paths[0] : "\(paths.count) files: \(paths.first!) ... \(paths.last!)")."
                )
            }
        }
    }
}
