// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogFormats
import GPSLogImportExport

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
        var inputFormat: String?
        /// The old name of --input-format: elsewhere --from is a time, so it is kept only for old scripts.
        @Option(name: .customLong("from"), help: .hidden) var deprecatedFrom: String?
        @Option(
            name: .customLong("output-format"),
            help: ArgumentHelp(
                "Output format (default: from the output file's extension).",
                valueName: ExportFormat.allCases.map(\.rawValue).joined(separator: "|")))
        var outputFormatName: String?
        /// The old name of --output-format: elsewhere --to is a time, so it is kept only for old scripts.
        @Option(name: .customLong("to"), help: .hidden) var deprecatedTo: String?
        @Option(help: "Simplify tracks with GEOS to this tolerance in metres.") var simplify: Double?
        @OptionGroup var tracks: TrackImportFlags
        @Option(help: ArgumentHelp("UTC date for NMEA logs that carry none.", valueName: "YYYY-MM-DD")) var date:
            String?
        @Option(
            help: "Time zone of the days of --split-by day (e.g. Europe/Amsterdam; default: TZ, else this machine's).")
        var timezone: String?

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if inputFormat != nil, deprecatedFrom != nil {
                throw ValidationError("Give --input-format only (--from is its old name).")
            }
            if let given = inputFormat ?? deprecatedFrom, ImportFormat(rawValue: given) == nil {
                let option = inputFormat != nil ? "--input-format" : "--from"
                throw ValidationError(
                    "\(option) must be one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if outputFormatName != nil, deprecatedTo != nil {
                throw ValidationError("Give --output-format only (--to is its old name).")
            }
            if let given = outputFormatName ?? deprecatedTo, ExportFormat(rawValue: given) == nil {
                let option = outputFormatName != nil ? "--output-format" : "--to"
                throw ValidationError(
                    "\(option) must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if outputFormat == nil {
                throw ValidationError(
                    "Say --output-format \(ExportFormat.allCases.map(\.rawValue).joined(separator: "|")) (the output's extension does not say it)."
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
            let given = outputFormatName ?? deprecatedTo
            return given.flatMap(ExportFormat.init(rawValue:))
                ?? (given == nil ? ExportFormat.guess(fromPath: output) : nil)
        }

        func run() throws {
            if deprecatedFrom != nil {
                FileHandle.standardError.write(
                    Data(
                        "warning: convert's --from is deprecated; use --input-format (--from is a time elsewhere).\n"
                            .utf8))
            }
            if deprecatedTo != nil {
                FileHandle.standardError.write(
                    Data(
                        "warning: convert's --to is deprecated; use --output-format (--to is a time elsewhere).\n"
                            .utf8))
            }
            let progress = ProgressBar(label: "Converting")
            defer { progress.finish() }
            try withInputFile(input) { path in
                var conversion = Conversion(input: path, output: output, to: outputFormat!)
                conversion.inputFormat = (inputFormat ?? deprecatedFrom).flatMap(ImportFormat.init(rawValue:))
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
