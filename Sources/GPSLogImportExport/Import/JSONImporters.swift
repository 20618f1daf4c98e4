// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Imports Overland batch bodies (`{"locations":[Feature, ...]}`, as the app POSTs them and `export --format
/// overland` writes them): one session per file; features without a Point geometry and Overland's records (a
/// `properties.action`, a `type: trip`) are not locations: visits are stored as the session's visits, the others
/// skipped; CoreLocation's -1 means unknown; `trip` gives the mode and start.
public struct OverlandImporter {
    /// Session name (default: the file name's stem).
    public var name: String?
    /// An importer that names the session after the file.
    public init() {}

    /// Imports the batch at `path` in one transaction; returns its one session.
    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError.unreadable(file: path, reason: "no such readable file")
        }
        let payload = try Self.payload(data, source: path)
        let entries = payload.entries
        let mode = payload.mode
        guard let first = entries.map(\.time).min() else {
            throw ImportError.noFixes(file: path, detail: "no location with a Point geometry")
        }
        let start = payload.tripStart.map { min($0, first) } ?? first
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try store.write {
            var sink = try EntryWriter(sink: store, name: name ?? stem, start: start, mode: mode, preferredID: nil)
            sink.keepsOnePointPerInstant = true
            for var e in entries.sorted(by: { $0.time < $1.time }) {
                e.id = sink.makeID(e.time)
                try sink.add(e)
            }
            let result = ImportResult(try sink.finish())
            // Visit records: an arrival, then the same visit with its departure; one row each.
            var visits: [Timestamp: Visit] = [:]
            for (_, v) in payload.visits where visits[v.arrival]?.departure == nil { visits[v.arrival] = v }
            for v in visits.values.sorted(by: { $0.arrival < $1.arrival }) {
                try store.addVisit(v, to: result.session.id)
            }
            return [result]
        }
    }

    /// The file's batch, or its batches one after another (what `export --format overland` writes to standard
    /// output when the session takes more than one), as one: their locations, visits, and the first trip's mode and
    /// start.
    static func payload(_ data: Data, source: String) throws -> OverlandPayload {
        let documents = topLevelValues(data)
        guard documents.count > 1 else { return try OverlandPayload(data, source: source) }
        var all: OverlandPayload?
        for document in documents {
            let batch = try OverlandPayload(Data(document), source: source)
            guard var merged = all else {
                all = batch
                continue
            }
            merged.entries += batch.entries
            merged.visits += batch.visits
            merged.mode = merged.mode ?? batch.mode
            merged.tripStart = merged.tripStart ?? batch.tripStart
            merged.skippedRecords += batch.skippedRecords
            all = merged
        }
        return all!
    }

    /// The top-level JSON values of `data` one after another (outside strings, where each `{` or `[` opened at
    /// depth 0 closes); the whole when it is one value or not JSON (then parsed whole, for its error).
    static func topLevelValues(_ data: Data) -> [Data] {
        var values: [Data] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start = data.startIndex
        for i in data.indices {
            let b = data[i]
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 0 { start = i }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { values.append(data[start...i]) }
                if depth < 0 { return [data] }
            default: break
            }
        }
        return depth == 0 && !values.isEmpty ? values : [data]
    }
}

/// Imports OwnTracks files: JSON lines, the OwnTracks Recorder's `.rec` files (`time TAB type TAB JSON`), both
/// streamed line by line, or the Recorder's JSON answers (`ocat`'s `{"count":N,"locations":[...]}`, its HTTP API's
/// `{"count":N,"data":[...]}`), read whole. Locations become entries (`t: u` a user mark, `vel` km/h); transitions
/// become the session's transitions, their region's centre and radius taken from the file's waypoints (by rid, else
/// by the waypoint's `tst`, the transition's `wtst`); other `_type`s (card, lwt, cmd...) are counted in a note.
public struct OwnTracksImporter {
    /// Session name (default: the file name's stem).
    public var name: String?
    /// Told what the user should know about the file (transitions kept, messages skipped): one line each.
    public var notes: (String) -> Void = { _ in }
    /// An importer that names sessions after the file and drops its notes.
    public init() {}

    /// Imports `path` in one transaction; returns its one session.
    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.unreadable(file: path, reason: "no such readable file")
        }
        defer { try? handle.close() }
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let head = handle.readData(ofLength: 4096)
        if OwnTracksRecorderOutput.isDocument(head) {
            // One JSON value: read whole (as an Overland batch is).
            let data = head + handle.readDataToEndOfFile()
            let messages = try OwnTracksRecorderOutput.messages(data, source: path)
            return try store.write {
                var file = OwnTracksFileImport(store: store, name: name ?? stem, path: path)
                for m in messages { try file.take(m) }
                return try file.finish(notes: notes)
            }
        }
        return try store.write {
            var file = OwnTracksFileImport(store: store, name: name ?? stem, path: path)
            var lineNumber = 0
            var buffer = head
            func handleLine(_ raw: Data) throws {
                lineNumber += 1
                guard let brace = raw.firstIndex(of: UInt8(ascii: "{")) else { return }
                try file.take(OwnTracksRecorderOutput.message(Data(raw[brace...]), source: path, line: lineNumber))
            }
            while true {
                while let newline = buffer.firstIndex(of: 10) {
                    try handleLine(buffer[buffer.startIndex..<newline])
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
                let chunk = handle.readData(ofLength: 1 << 16)
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            if !buffer.isEmpty { try handleLine(buffer) }
            return try file.finish(notes: notes)
        }
    }
}

/// One OwnTracks file's import, message by message, inside the import's transaction: the session is made at the
/// first location or transition; transitions and waypoints (a few) are kept until the end.
struct OwnTracksFileImport {
    let store: Store
    let name: String
    let path: String
    private var sink: EntryWriter?
    private var earliest: Timestamp?
    private var transitions: [ReceivedTransition] = []
    private var waypoints: [ReceivedWaypoint] = []
    private var skipped: [String: Int] = [:]

    init(store: Store, name: String, path: String) {
        self.store = store
        self.name = name
        self.path = path
    }

    mutating func take(_ message: OwnTracksReceived) throws {
        switch message {
        case .location(var e):
            try open(at: e.time)
            e.id = sink!.makeID(e.time)
            try sink!.add(e)
        case .transition(let t):
            try open(at: t.time)
            transitions.append(t)
        case .waypoints(let list): waypoints += list
        case .other(let type): skipped[type.isEmpty ? "untyped" : type, default: 0] += 1
        case .card: skipped["card", default: 0] += 1
        case .lastWill: skipped["lwt", default: 0] += 1
        }
    }

    private mutating func open(at time: Timestamp) throws {
        earliest = min(earliest ?? time, time)
        if sink == nil {
            sink = try EntryWriter(sink: store, name: name, start: time, mode: nil, preferredID: nil)
            sink?.keepsOnePointPerInstant = true
        }
    }

    /// Stores the transitions, ends the session (at its last entry or transition) and says what was kept.
    mutating func finish(notes: (String) -> Void) throws -> [ImportResult] {
        guard var open = sink, let earliest else {
            var detail = "no OwnTracks location or transition message"
            if !waypoints.isEmpty { detail += "; \(waypoints.count) waypoints (for regions: gpslog region import)" }
            throw ImportError.noFixes(file: path, detail: detail)
        }
        let id = open.session!.id
        if earliest < open.session!.start { try store.setSessionStart(id: id, start: earliest) }
        var unknown = 0
        for t in transitions {
            let stored = transition(t)
            if !stored.regionIsKnown { unknown += 1 }
            try store.addTransition(stored, to: id)
        }
        var result = ImportResult(try open.finish())
        if let last = transitions.map(\.time).max(), last > (result.session.end ?? result.session.start) {
            try store.finishSession(id: id, end: last)
            result.session.end = last
        }
        if earliest < result.session.start { result.session.start = earliest }
        if !transitions.isEmpty {
            var line = "imported \(transitions.count) region transitions (gpslog events)"
            if unknown > 0 {
                line += "; \(unknown) of them through regions whose waypoint the file does not hold (centre unknown)"
            }
            notes(line)
        }
        if !waypoints.isEmpty {
            notes(
                "read \(waypoints.count) waypoints for their transitions' regions; they are not added to gpslog's regions (gpslog region import reads the app's waypoints export)"
            )
        }
        if !skipped.isEmpty {
            let counts = skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            notes("skipped \(counts) messages: they are not locations, transitions or waypoints")
        }
        return [result]
    }

    /// A transition with its region: the file's waypoint of the same rid (the latest), else of the same creation
    /// second (`tst` = `wtst`); without one, a region standing at the transition with no centre known.
    private func transition(_ t: ReceivedTransition) -> Transition {
        let second = { (time: Timestamp) in time.milliseconds / 1000 }
        let waypoint =
            t.regionID.flatMap { rid in
                waypoints.filter { $0.regionID == rid }.max { $0.created < $1.created }
            } ?? waypoints.last { second($0.created) == second(t.regionCreated) }
        let area = waypoint?.area
        let region = Region(
            name: (t.regionName ?? waypoint?.description ?? t.regionID ?? "").truncated(to: TextLimit.label),
            latitude: area?.0 ?? t.latitude, longitude: area?.1 ?? t.longitude, radius: area?.2 ?? 0,
            regionID: t.regionID ?? waypoint?.regionID ?? "", created: t.regionCreated)
        var stored = Transition(
            region: region, event: t.event, time: t.time, latitude: t.latitude, longitude: t.longitude,
            horizontalAccuracy: t.horizontalAccuracy, trigger: t.trigger)
        stored.regionIsKnown = area != nil
        return stored
    }
}
