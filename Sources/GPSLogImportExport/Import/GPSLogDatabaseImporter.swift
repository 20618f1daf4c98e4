// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports the SQLite database of the iOS app GPS Log (`Log.db`: TEXT-typed Sessions and Entries, documented in
/// `../shared/spec/seeds-details.md` §1.1), one session per Sessions row, plus one per set of entries whose
/// session row was never written (GPS Log writes it only on Save).
///
/// GPS Log's quirks are undone: times are local `YYYY-MM-DD HH:MM:SS` strings (read in `timeZone`), numbers are
/// text, `-1` means unknown, `'n/a'` is no address, heading-change rows carry latitude and longitude 0 and the
/// time 1901-01-01 (they get the previous position and their HeadingTimeStamp).
public struct GPSLogDatabaseImporter {
    /// The time zone the phone was in (GPS Log stored local times without an offset).
    public var timeZone: TimeZone = .current
    /// Session name for every session (default: GPS Log's own names).
    public var name: String?

    /// An importer that reads times in the machine's zone and keeps GPS Log's names.
    public init() {}

    /// Imports the database at `path` in one transaction; returns the sessions made (at least one).
    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        let source: GPSLogAppDatabase
        do {
            source = try GPSLogAppDatabase(path: path)
        } catch StoreError.cannotOpen(_, let reason) {
            throw ImportError.unsupportedFormat(file: path, detail: "not a GPS Log database (\(reason))")
        }
        return try store.write {
            let results = try source.sessions().map { row in
                try importSession(
                    id: row.id, start: row.start, end: row.end, name: row.name, source: source, store: store, path: path
                )
            }
            guard !results.isEmpty else { throw ImportError.noFixes(file: path, detail: "no sessions and no entries") }
            return results
        }
    }

    /// Parses GPS Log's local "YYYY-MM-DD HH:MM:SS" (seconds may be missing).
    func time(_ text: String?) -> Timestamp? {
        guard let text = text?.trimmedWhitespace, !text.isEmpty, let t = Timestamp(iso8601: text) else { return nil }
        // Parsed as UTC; shift by the zone's offset at that moment.
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: t.seconds))
        return Timestamp(milliseconds: t.milliseconds - Int64(offset) * 1000)
    }

    private func importSession(
        id: String, start: String?, end: String?, name: String?, source: GPSLogAppDatabase, store: Store, path: String
    ) throws -> ImportResult {
        var entries: [Entry] = []
        var lastPosition: (Double, Double, Double?)?
        var row = 0
        try source.forEachEntry(ofSession: id) { cells in
            row += 1
            let isHeading = (cells.number(.isHeadingChanged) ?? 0) != 0
            let headingTime = time(cells.text(.headingTimeStamp))
            if isHeading {
                guard let position = lastPosition, let heading = cells.number(.heading), heading >= 0,
                    let t = headingTime
                else { return }
                var e = Entry(id: "", latitude: position.0, longitude: position.1, altitude: position.2, time: t)
                e.isHeadingChanged = true
                e.heading = Geo.normalizedDegrees(heading)
                e.headingTime = t
                entries.append(e)
                return
            }
            guard let lat = cells.number(.latitude), let lon = cells.number(.longitude),
                Geo.isValidPosition(latitude: lat, longitude: lon)
            else {
                throw ImportError.invalidValue(
                    file: path, line: 0, field: "Entries row \(row) of session \(id): Latitude/Longitude",
                    value: "\(cells.text(.latitude) ?? "NULL"), \(cells.text(.longitude) ?? "NULL")")
            }
            guard let t = time(cells.text(.timeStamp)) else {
                throw ImportError.invalidValue(
                    file: path, line: 0, field: "Entries row \(row) of session \(id): TimeStamp",
                    value: cells.text(.timeStamp) ?? "NULL")
            }
            func known(_ c: GPSLogAppDatabase.Column) -> Double? { cells.number(c).flatMap { $0 < 0 ? nil : $0 } }
            var e = Entry(id: "", latitude: lat, longitude: lon, altitude: cells.number(.altitude), time: t)
            e.horizontalAccuracy = known(.horizontalAccuracy)
            e.verticalAccuracy = known(.verticalAccuracy)
            e.speed = known(.speed)
            e.course = known(.course).map { Geo.normalizedDegrees($0) }
            let address = cells.text(.address)?.trimmedWhitespace
            e.address = (address == nil || address == "n/a" || address!.isEmpty) ? nil : address
            e.marked = cells.text(.marked)?.lowercased() == "true" || cells.number(.marked) == 1
            e.instanceCount = max(1, Int(cells.number(.instanceCount) ?? 1))
            if let entryID = cells.text(.entryID), Identifier.isUUID(entryID) { e.id = entryID.lowercased() }
            lastPosition = (lat, lon, e.altitude)
            entries.append(e)
        }
        let first = entries.map(\.time).min()
        let startTime = time(start) ?? first ?? Timestamp(milliseconds: 0)
        let sessionName =
            self.name ?? name.flatMap { $0.trimmedWhitespace.isEmpty ? nil : $0 } ?? start
            ?? "GPS Log session \(id.prefix(8))"
        var sink = try EntryWriter(
            sink: store, name: sessionName, start: min(startTime, first ?? startTime),
            end: time(end), mode: nil, preferredID: id)
        for var e in entries {
            let keep = try !e.id.isEmpty && sink.canKeep(entryID: e.id)
            if !keep { e.id = try sink.makeUnusedID(e.time) }
            try sink.add(e)
        }
        return ImportResult(try sink.finish())
    }
}
