// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports CSV files of points (read by `CSVReader`, columns found by `CSVLayout`): gpslog's own export (a session
/// per `session` id, its marks and heading rows as they were), GPSBabel's `unicsv`, GDAL's (a session per
/// `track_fid`, a segment per `track_seg_id`), GPSLogger's (a row with an `annotation` is a mark), and hand-made
/// files with a latitude, a longitude and a time column in common spellings, `,` or `;` (with decimal commas) or
/// tabs. Streamed row by row in one transaction; a file without those columns is refused naming the column.
public struct CSVImporter: TrackFileImporter {
    /// Names and `merge`.
    public var options = TrackImportOptions()

    /// An importer with `options` (by default: names from the file, no merge).
    public init(options: TrackImportOptions = TrackImportOptions()) { self.options = options }

    /// Imports into any target (a convert's spool, a dry run).
    public func importFile(_ path: String, into store: any SessionSink) throws -> [ImportResult] {
        try FileImport.run(path, store: store) {
            var reader = try CSVReader(file: path)
            defer { reader.close() }
            guard try reader.next() else { throw ImportError.noFixes(file: path, detail: "an empty CSV file") }
            let header = reader.fields.indices.map { reader.text($0) }
            let layout = try CSVLayout(header: header, file: path)
            let window = TimeWindow.current
            var sessions = PointSessions(path: path, options: options, store: store)
            var cache = CSVTextCache()
            while try reader.next() {
                if reader.fields.count > header.count {
                    throw ImportError.malformed(
                        file: path, line: reader.line,
                        reason: "\(reader.fields.count) fields where the header has \(header.count)")
                }
                let row = try layout.row(reader, header: header, window: window, cache: &cache)
                guard Geo.isPlausiblePosition(latitude: row.entry.latitude, longitude: row.entry.longitude) else {
                    continue
                }
                if row.kind == .mark {
                    try sessions.mark(row.entry, hasTime: row.hasTime, key: row.group)
                } else {
                    let group = PointSessions.Group(
                        key: row.group, name: row.sessionName, mode: nil, preferredID: row.sessionID)
                    try sessions.track(row.entry, hasTime: row.hasTime, group: group, segment: row.segment)
                }
            }
            let results = try sessions.finish()
            guard !results.isEmpty else { throw ImportError.noFixes(file: path, detail: "no rows with a position") }
            return results
        }
    }
}
