// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogBundledRecording
import GPSLogImportExport
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Imports files into new sessions.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import files into new sessions (one per track or per file), each file in one transaction.",
            discussion: """
                Reads NMEA 0183 logs (any talker; bad sentences are counted and skipped), GPX 1.0 and 1.1 (tracks, \
                waypoints as marks, routes with --routes, TrackPointExtension speed and course; also without a \
                namespace, with a byte order mark or in UTF-16), GeoJSON (lines with coordTimes, points with a time \
                property), CSV (latitude, longitude and time columns), KML and KMZ (gx:Track, lines with a time span, \
                timed Point placemarks), TCX (activities and courses), gpslog's XML export, Overland batch JSON, \
                OwnTracks JSON lines or .rec files, the iOS app GPS Log's Log.db (its local times read in \
                --timezone, default this machine's), and Google location history (Takeout's Records.json and \
                Semantic Location History, the phone's Timeline export: one session per file, or per day with \
                --split-by day; visits go to the session's visits); the format is told by content. A file of \
                several tracks makes a session each ("NAME (1)", "NAME (2)" when they share a name), or one with \
                --merge. A bad file imports \
                nothing and says where it is bad. --dry-run says what would be imported and writes nothing. \
                --sample imports the recording bundled with gpslog. --postgres URL imports NMEA and the track \
                formats straight into a PostgreSQL database with PostGIS instead (the tables sync writes).
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Files to import ('-' for standard input).") var files: [String] = []
        @Option(
            help: "Session name (default: the track's or the file's name; with several files, NAME 1, NAME 2, ...).")
        var name: String?
        @Option(
            help: ArgumentHelp(
                "Format, when the content does not say it.",
                valueName: ImportFormat.allCases.map(\.rawValue).joined(separator: "|")))
        var format: String?
        @Flag(help: "Import the real recording bundled with gpslog.") var sample = false
        @OptionGroup var tracks: TrackImportFlags
        @Flag(help: "Say what each file would import (sessions, points, marks); write nothing.") var dryRun = false
        @Option(help: ArgumentHelp("UTC date for logs that carry none (GGA-only NMEA).", valueName: "YYYY-MM-DD"))
        var date: String?
        @Option(
            help: """
                Time zone of a GPS Log database's local times, and of the days of --split-by day (e.g. \
                Europe/Amsterdam; default: TZ, else this machine's).
                """)
        var timezone: String?
        @Option(
            help: ArgumentHelp(
                "Trip mode of an NMEA log's session (other formats carry their own, or none).",
                valueName: TripMode.allCases.map(\.rawValue).joined(separator: "|")))
        var mode: String?
        @Option(
            help: ArgumentHelp(
                "Import into this PostgreSQL database (with PostGIS) instead of the SQLite one.",
                valueName: "postgres://USER@HOST:PORT/DATABASE"))
        var postgres: String?
        @OptionGroup var postgresLogin: PostgresOptions

        /// The database (or its `-wal`, `-shm`) named as a file to import: reading it would open and close it outside
        /// SQLite, which drops this process's SQLite locks on it and lets another process delete the WAL under a
        /// running recorder or serve.
        func refuseTheDatabaseItself() throws {
            func identity(_ path: String) -> (UInt64, UInt64)? {
                var info = stat()
                return stat(path, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino)) : nil
            }
            let database = global.databasePath
            let own = ["", "-wal", "-shm"].compactMap { identity(database + $0) }
            for file in files where file != "-" {
                guard let id = identity(file), own.contains(where: { $0 == id }) else { continue }
                throw CommandError.refused(
                    "\(file.visible) is gpslog's own database (--db \(database.visible)): it cannot be imported into itself. To copy sessions from another gpslog database, export them (gpslog --db OTHER export ...) and import the export."
                )
            }
        }

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if files.isEmpty && !sample { throw ValidationError("Name at least one file to import, or --sample.") }
            if dryRun && sample {
                throw ValidationError("--dry-run checks files; --sample is always the same recording.")
            }
            if let format, ImportFormat(rawValue: format) == nil {
                throw ValidationError(
                    "--format must be one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if let date, ImportOptions.parseDate(date) == nil {
                throw ValidationError("--date must be YYYY-MM-DD, not '\(date)'.")
            }
            if let timezone, TimeZone(identifier: timezone) == nil {
                throw ValidationError("--timezone '\(timezone)' is not a known time zone (e.g. Europe/Amsterdam, UTC).")
            }
            if let mode, TripMode(rawValue: mode) == nil {
                throw ValidationError(
                    "--mode must be one of \(TripMode.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if let postgres, !PostgresOptions.isPostgres(postgres) {
                throw ValidationError(
                    "--postgres must be a URL starting with postgres:// (e.g. postgres://gpslog@db.example:5432/fleet)."
                )
            }
        }

        func run() throws {
            try refuseTheDatabaseItself()
            if dryRun { return try DryRun(files: files, importer: importer(file:index:)).run() }
            if let postgres { return try importIntoPostgres(postgres) }
            let store = try global.openStore()
            defer { store.close() }
            let progress = ProgressBar(label: "Importing")
            defer { progress.finish() }
            store.onAppend = { progress.advance(by: $0) }
            if sample { report(try importSample(into: store), progress: progress) }
            for (i, file) in files.enumerated() {
                let (fileImporter, format) = self.importer(file: file, index: i)
                let results = try withInputFile(file) { try fileImporter.importFile($0, format: format, into: store) }
                for result in results { report(result, progress: progress) }
            }
        }

        /// The bundled recording. Its session id is derived from its bytes, so its exports are the same on every
        /// machine; a second import of it gets a random id.
        func importSample(into sink: any SessionSink) throws -> ImportResult {
            var importer = NMEAImporter()
            importer.assumedDate = date.flatMap(ImportOptions.parseDate)
            return try importer.importText(
                Sample.nmea, file: Sample.fileName, name: name ?? Sample.sessionName,
                mode: mode.flatMap(TripMode.init(rawValue:)), sessionID: Sample.sessionID, onlyIfFree: true,
                into: sink)
        }

        /// The importer for the `index`-th file, and its format when the command line or `-` says it.
        func importer(file: String, index: Int) -> (FileImporter, ImportFormat?) {
            var fileImporter = FileImporter()
            fileImporter.nmea.assumedDate = date.flatMap(ImportOptions.parseDate)
            fileImporter.options = tracks.options(
                name: name.map { files.count > 1 ? "\($0) \(index + 1)" : $0 },
                file: displayName(ofInput: file),
                timeZone: timezone.flatMap(TimeZone.init(identifier:)) ?? .current)
            fileImporter.mode = mode.flatMap(TripMode.init(rawValue:))
            if let zone = timezone.flatMap(TimeZone.init(identifier:)) { fileImporter.timeZone = zone }
            return (fileImporter, self.format.flatMap(ImportFormat.init(rawValue:)))
        }

        func report(_ result: ImportResult, progress: ProgressBar? = nil) {
            progress?.finish()
            var line =
                "Imported '\(result.session.name)' (\(result.session.shortID)): \(counted(result.entries, "entry", "entries"))"
            if let s = result.statistics {
                line +=
                    " from \(counted(s.fixes, "fix", "fixes")) and \(counted(s.headings, "heading")); skipped \(counted(s.badChecksum, "bad checksum")), \(counted(s.unparsable, "unparsable sentence"))"
            }
            if result.repeats > 0 {
                line +=
                    "; left out \(result.repeats) repeated point\(result.repeats == 1 ? "" : "s") (the time and place of the point before)"
            }
            print(line + ".")
        }
    }
}

/// Parsing helpers for import options.
enum ImportOptions {
    static func parseDate(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), d >= 1, d <= Timestamp.daysIn(month: m, year: y)
        else { return nil }
        return (y, m, d)
    }

}
