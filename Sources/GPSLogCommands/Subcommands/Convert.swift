// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogFormats
import GPSLogInterchange

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

        @Argument(help: "Input file, or - for standard input.") var input: String
        @Argument(help: "Output file, or - for standard output.") var output: String
        @Option(
            help: ArgumentHelp(
                "Input format, when the content does not say it.",
                valueName: ImportFormat.allCases.map(\.rawValue).joined(separator: "|")))
        var from: String?
        @Option(
            help: ArgumentHelp(
                "Output format (default: from the output file's extension).",
                valueName: ExportFormat.allCases.map(\.rawValue).joined(separator: "|")))
        var to: String?
        @Option(help: "Simplify tracks with GEOS to this tolerance in metres.") var simplify: Double?
        @OptionGroup var tracks: TrackImportFlags
        @Option(help: ArgumentHelp("UTC date for NMEA logs that carry none.", valueName: "YYYY-MM-DD")) var date:
            String?
        @Option(
            help: "Time zone of the days of --split-by day (e.g. Europe/Amsterdam; default: TZ, else this machine's).")
        var timezone: String?

        func validate() throws {
            if let from, ImportFormat(rawValue: from) == nil {
                throw ValidationError(
                    "--from must be one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if outputFormat == nil {
                throw ValidationError(
                    "Say --to \(ExportFormat.allCases.map(\.rawValue).joined(separator: "|")) (the output's extension does not say it)."
                )
            }
            if let date, ImportOptions.parseDate(date) == nil {
                throw ValidationError("--date must be YYYY-MM-DD, not '\(date)'.")
            }
            if let timezone, TimeZone(identifier: timezone) == nil {
                throw ValidationError("--timezone '\(timezone)' is not a known time zone (e.g. Europe/Amsterdam, UTC).")
            }
            if let simplify, simplify <= 0 || !simplify.isFinite {
                throw ValidationError("--simplify must be a positive number of metres.")
            }
        }

        var outputFormat: ExportFormat? {
            to.flatMap(ExportFormat.init(rawValue:)) ?? (to == nil ? ExportFormat.guess(fromPath: output) : nil)
        }

        func run() throws {
            let progress = ProgressBar(label: "Converting")
            defer { progress.finish() }
            try withInputFile(input) { path in
                var conversion = Conversion(input: path, output: output, to: outputFormat!)
                conversion.inputFormat = from.flatMap(ImportFormat.init(rawValue:))
                conversion.simplify = simplify
                conversion.assumedDate = date.flatMap(ImportOptions.parseDate)
                conversion.options = tracks.options(
                    name: nil, file: displayName(ofInput: input),
                    timeZone: timezone.flatMap(TimeZone.init(identifier:)) ?? .current)
                try conversion.run { progress.advance(by: $0) }
            }
        }
    }
}
