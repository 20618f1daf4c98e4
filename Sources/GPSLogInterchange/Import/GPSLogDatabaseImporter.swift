// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogSQLite
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

    public init() {}

    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        let source: Database
        do {
            source = try Database(path: path, mode: .readOnly)
            _ = try source.scalar("SELECT COUNT(*) FROM Entries")
        } catch let error as SQLiteError {
            throw ImportError.unsupportedFormat(file: path, detail: "not a GPS Log database (\(error.message))")
        }
        defer { source.close() }
        return try store.write {
            var results: [ImportResult] = []
            let sessions = try source.makeStatement("SELECT ID, StartTime, EndTime, Name FROM Sessions ORDER BY StartTime, Key")
            var known = Set<String>()
            while try sessions.step() {
                let id = sessions.string(at: 0) ?? ""
                known.insert(id)
                results.append(try importSession(
                    id: id, start: sessions.string(at: 1), end: sessions.string(at: 2), name: sessions.string(at: 3),
                    source: source, store: store, path: path))
            }
            let orphans = try source.makeStatement("SELECT DISTINCT Session FROM Entries")
            while try orphans.step() {
                guard let id = orphans.string(at: 0), !known.contains(id) else { continue }
                results.append(try importSession(id: id, start: nil, end: nil, name: nil, source: source, store: store, path: path))
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

    private func number(_ s: Statement, _ column: Int32) -> Double? {
        if let v = s.double(at: column), s.string(at: column).map({ Double($0.trimmedWhitespace) != nil }) ?? true { return v }
        return s.string(at: column).flatMap { Double($0.trimmedWhitespace) }
    }

    private func importSession(id: String, start: String?, end: String?, name: String?, source: Database, store: Store, path: String) throws -> ImportResult {
        let rows = try source.makeStatement("""
            SELECT Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course, Address,
                   Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp
            FROM Entries WHERE Session = ? ORDER BY Key
            """)
        try rows.bind(id, at: 1)
        var entries: [Entry] = []
        var lastPosition: (Double, Double, Double?)?
        var row = 0
        while try rows.step() {
            row += 1
            let isHeading = (number(rows, 13) ?? 0) != 0
            let headingTime = time(rows.string(at: 14))
            if isHeading {
                guard let position = lastPosition, let heading = number(rows, 12), heading >= 0, let t = headingTime else { continue }
                var e = Entry(id: "", latitude: position.0, longitude: position.1, altitude: position.2, time: t)
                e.isHeadingChanged = true
                e.heading = Geo.normalizedDegrees(heading)
                e.headingTime = t
                entries.append(e)
                continue
            }
            guard let lat = number(rows, 0), let lon = number(rows, 1), abs(lat) <= 90, abs(lon) <= 180 else {
                throw ImportError.invalidValue(file: path, line: 0, field: "Entries row \(row) of session \(id): Latitude/Longitude",
                                               value: "\(rows.string(at: 0) ?? "NULL"), \(rows.string(at: 1) ?? "NULL")")
            }
            guard let t = time(rows.string(at: 5)) else {
                throw ImportError.invalidValue(file: path, line: 0, field: "Entries row \(row) of session \(id): TimeStamp", value: rows.string(at: 5) ?? "NULL")
            }
            func known(_ c: Int32) -> Double? { number(rows, c).flatMap { $0 < 0 ? nil : $0 } }
            var e = Entry(id: "", latitude: lat, longitude: lon, altitude: number(rows, 2), time: t)
            e.horizontalAccuracy = known(3)
            e.verticalAccuracy = known(4)
            e.speed = known(6)
            e.course = known(7).map { Geo.normalizedDegrees($0) }
            let address = rows.string(at: 8)?.trimmedWhitespace
            e.address = (address == nil || address == "n/a" || address!.isEmpty) ? nil : address
            e.marked = rows.string(at: 9)?.lowercased() == "true" || number(rows, 9) == 1
            e.instanceCount = max(1, Int(number(rows, 11) ?? 1))
            if let entryID = rows.string(at: 10), Identifier.isUUID(entryID) { e.id = entryID.lowercased() }
            lastPosition = (lat, lon, e.altitude)
            entries.append(e)
        }
        let first = entries.map(\.time).min()
        let startTime = time(start) ?? first ?? Timestamp(milliseconds: 0)
        let sessionName = self.name ?? name.flatMap { $0.trimmedWhitespace.isEmpty ? nil : $0 } ?? start ?? "GPS Log session \(id.prefix(8))"
        var sink = try EntrySink(store: store, name: sessionName, start: min(startTime, first ?? startTime),
                                 end: time(end), mode: nil, preferredID: id)
        for var e in entries {
            let keep = try !e.id.isEmpty && sink.canKeep(entryID: e.id)
            if !keep { e.id = sink.makeID(e.time) }
            try sink.add(e)
        }
        return try sink.finish()
    }
}
