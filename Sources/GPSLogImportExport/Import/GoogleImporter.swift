// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports Google location history (Takeout's `Records.json` and Semantic Location History, the phone's Timeline
/// export; read by `GoogleLocationReader`, streaming): locations become track points, visits the session's visits
/// (`gpslog visits`). One session per file, named after the file (or `--name`); with `splitByDay`, one per local day
/// of its points and visits' arrivals, named "NAME YYYY-MM-DD". One transaction per file; memory stays flat: of each
/// session only its row and id generator are kept, and only the one being written holds a batch.
public struct GoogleLocationImporter: TrackFileImporter {
    /// The name, `splitByDay`, and where notes go.
    public var options = TrackImportOptions()

    /// An importer with `options` (by default: one session per file, named after it).
    public init(options: TrackImportOptions = TrackImportOptions()) { self.options = options }

    /// Imports into any target (the user's store through a pipeline, a dry run, a convert's store).
    public func importFile(_ path: String, into store: any SessionSink) throws -> [ImportResult] {
        try FileImport.run(path, store: store) {
            let sessions = GoogleSessions(path: path, options: options, store: store)
            try GoogleLocationReader.read(path, into: sessions)
            return try sessions.finish()
        }
    }
}

/// The sessions a Google file makes: one, or one per local day. A file need not be in time order (the Android export
/// lists its raw signals after all its segments), so a session is found again when its day comes back, and its start
/// moved when an earlier point comes later.
final class GoogleSessions: GoogleLocationVisitor {
    private struct Open {
        var sink: EntryWriter
        var earliest: Timestamp
        var latest: Timestamp
    }

    let path: String
    private let store: any SessionSink
    private let options: TrackImportOptions
    private let base: String
    private var days: LocalDays?
    /// The session being written, by its key (its day, or "" for the whole file), and the others.
    private var active: (key: String, open: Open)?
    private var others: [String: Open] = [:]
    private var visits = 0

    init(path: String, options: TrackImportOptions, store: any SessionSink) {
        self.path = path
        self.store = store
        self.options = options
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        base =
            [options.name, stem].compactMap { $0?.trimmedWhitespace.isEmpty == false ? $0 : nil }.first
            ?? "Location history"
        days = options.splitByDay.map(LocalDays.init(zone:))
    }

    func location(_ entry: Entry) throws {
        try activate(key(entry.time), at: entry.time)
        var e = entry
        e.id = active!.open.sink.makeTrackPointID(e.time)
        try active!.open.sink.add(e)
        active!.open.earliest = min(active!.open.earliest, e.time)
        active!.open.latest = max(active!.open.latest, e.time)
    }

    func visit(_ visit: Visit) throws {
        let key = self.key(visit.arrival)
        try activate(key, at: visit.arrival)
        try store.addVisit(visit, to: active!.open.sink.session!.id)
        visits += 1
        active!.open.earliest = min(active!.open.earliest, visit.arrival)
        // A stay that goes on past midnight does not stretch the day's session over the next.
        let last = visit.departure.flatMap { days == nil || self.key($0) == key ? $0 : nil } ?? visit.arrival
        active!.open.latest = max(active!.open.latest, last)
    }

    func note(_ text: String) { options.notes(text) }

    private func key(_ t: Timestamp) -> String { days == nil ? "" : days!.key(t) }

    /// Makes the session of `key` the one written to: the one before it hands back its batch's memory; a new one
    /// starts at `time`.
    private func activate(_ key: String, at time: Timestamp) throws {
        if active?.key == key { return }
        if var previous = active {
            try previous.open.sink.release()
            others[previous.key] = previous.open
            active = nil
        }
        if let found = others.removeValue(forKey: key) {
            active = (key, found)
            return
        }
        let name = key.isEmpty ? base : "\(base) \(key)"
        var sink = try EntryWriter(sink: store, name: name, start: time, mode: nil, preferredID: nil)
        sink.keepsOnePointPerInstant = true
        active = (key, Open(sink: sink, earliest: time, latest: time))
    }

    /// After the file: every session's start and end set, in order of their day.
    func finish() throws -> [ImportResult] {
        if let last = active { others[last.key] = last.open }
        active = nil
        guard !others.isEmpty else { throw ImportError.noFixes(file: path, detail: "no location or visit") }
        var results: [ImportResult] = []
        for key in others.keys.sorted() {
            var open = others[key]!
            let id = open.sink.session!.id
            if open.earliest < open.sink.session!.start { try store.setSessionStart(id: id, start: open.earliest) }
            var result = ImportResult(try open.sink.finish())
            result.session.start = open.earliest
            if let end = result.session.end, open.latest > end {
                try store.finishSession(id: id, end: open.latest)
                result.session.end = open.latest
            }
            results.append(result)
        }
        others = [:]
        if visits > 0 {
            options.notes("stored \(visits) visit(s) with the session(s): 'gpslog visits SESSION' lists them")
        }
        return results
    }
}

/// The local day of a time in a zone, as "YYYY-MM-DD". The zone's offset is looked up once per day (and at its
/// daylight saving changes), not once per point: the key holds from the time it was worked out for to the end of
/// that day or the zone's next change, whichever is first.
struct LocalDays {
    let zone: TimeZone
    private var cached: (range: Range<Int64>, key: String)?

    init(zone: TimeZone) { self.zone = zone }

    mutating func key(_ t: Timestamp) -> String {
        if let cached, cached.range.contains(t.milliseconds) { return cached.key }
        let date = Date(timeIntervalSince1970: Double(t.milliseconds) / 1000)
        let offset = Int64(zone.secondsFromGMT(for: date)) * 1000
        let local = t.milliseconds + offset
        let day = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
        let c = Timestamp.civil(days: day)
        let key = String(format: "%04d-%02d-%02d", c.year, c.month, c.day)
        var end = (day + 1) * 86_400_000 - offset
        if let change = zone.nextDaylightSavingTimeTransition(after: date) {
            end = min(end, Int64((change.timeIntervalSince1970 * 1000).rounded()))
        }
        cached = (t.milliseconds..<max(end, t.milliseconds + 1), key)
        return key
    }
}
