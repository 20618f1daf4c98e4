// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore
import GPSLogSystem

/// A convert's scratch store: entries go to private temporary files in a compact binary layout (the track to one,
/// the marks to another) and are read back in sequence, merged in time order. `gpslog convert` goes through it
/// instead of a temporary SQLite database because a B-tree insert and a 30-column read per point cost ten times what
/// the whole conversion does otherwise (profiled: SQLite was 45 % of a GPX -> GeoJSON convert); memory stays flat
/// whatever the file size.
///
/// Sessions are read back in insertion order, which is time order when the file is. A session whose track or marks
/// are not in time order sets `needsSorting`; the caller then converts through a temporary `Store`, which sorts.
public final class TrackSpool: SessionSink, SessionSource {
    private struct SessionInfo {
        var session: Session
        var ranges: [Range<Int64>] = []
        var markRanges: [Range<Int64>] = []
        var lastTrackTime: Timestamp?
        var lastMarkTime: Timestamp?
    }

    private let track: SpoolFile
    private let marks: SpoolFile
    private var sessions: [SessionInfo] = []
    private var indexByID: [String: Int] = [:]
    private var nextKey: Int64 = 1
    /// Called with the number of entries of each appended batch (progress bars).
    public var onAppend: ((Int) -> Void)?
    /// True when some session's track or marks are out of time order.
    public private(set) var needsSorting = false

    /// Creates the scratch files in `folder` (mode 0600, unlinked at once: see `SpoolFile`).
    public init(folder: String) throws {
        track = try SpoolFile(folder: folder, name: "track")
        marks = try SpoolFile(folder: folder, name: "marks")
    }

    // MARK: - SessionSink

    /// Checks the session as the store would (a free UUID, lower-cased; a name) and keeps it in memory.
    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws
        -> Session
    {
        let session = try TrackSpool.newSession(
            name: name, start: start, mode: mode, id: id, key: sessions.count + 1, taken: indexByID)
        indexByID[session.id] = sessions.count
        sessions.append(SessionInfo(session: session))
        return session
    }

    /// Whether this spool made a session with this id.
    public func hasSession(id: String) throws -> Bool { indexByID[id] != nil }

    /// Checks each position as the store does and writes the row to the track file, or a mark to the marks file;
    /// returns their keys, numbered 1, 2, ... across the spool.
    @discardableResult
    public func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        guard let i = indexByID[sessionID] else { throw StoreError.invalidSession(reason: "no session \(sessionID)") }
        let firstKey = nextKey
        for (index, var e) in entries.enumerated() {
            try TrackSpool.checkPosition(e, index: index)
            e.key = nextKey
            nextKey += 1
            if e.marked {
                if let last = sessions[i].lastMarkTime, e.time < last { needsSorting = true }
                sessions[i].lastMarkTime = e.time
                Self.extend(&sessions[i].markRanges, with: try marks.append(e))
                continue
            }
            if let last = sessions[i].lastTrackTime, e.time < last { needsSorting = true }
            sessions[i].lastTrackTime = e.time
            Self.extend(&sessions[i].ranges, with: try track.append(e))
        }
        onAppend?(entries.count)
        return Array(firstKey..<nextKey)
    }

    /// Adds a record's range to a session's list, growing the last range when the record follows it.
    private static func extend(_ ranges: inout [Range<Int64>], with record: Range<Int64>) {
        if let r = ranges.last, r.upperBound == record.lowerBound {
            ranges[ranges.count - 1] = r.lowerBound..<record.upperBound
        } else {
            ranges.append(record)
        }
    }

    /// Sets the session's end; an unknown id is ignored.
    public func finishSession(id: String, end: Timestamp) throws {
        guard let i = indexByID[id] else { return }
        sessions[i].session.end = end
    }

    /// Renames the session (trimmed, cut to the length limit); an unknown id is ignored.
    public func renameSession(id: String, to name: String) throws {
        guard let i = indexByID[id] else { return }
        sessions[i].session.name = name.trimmedWhitespace.truncated(to: TextLimit.sessionName)
    }

    /// A convert's session, checked as the store checks one (what `Store.createSession` refuses, this refuses).
    static func newSession(name: String, start: Timestamp, mode: TripMode?, id: String?, key: Int, taken: [String: Int])
        throws -> Session
    {
        let id = (id ?? Identifier.uuidV4()).lowercased()
        guard Identifier.isUUID(id) else { throw StoreError.invalidSession(reason: "'\(id)' is not a UUID") }
        let name = name.trimmedWhitespace
        guard !name.isEmpty else { throw StoreError.invalidSession(reason: "the name is empty") }
        guard taken[id] == nil else { throw StoreError.invalidSession(reason: "a session with id \(id) exists") }
        return Session(key: Int64(key), id: id, name: name, start: start, end: nil, mode: mode)
    }

    /// The store's range check on a position (its latitude_in_range and longitude_in_range rules).
    static func checkPosition(_ e: Entry, index: Int) throws {
        guard e.latitude.isFinite, abs(e.latitude) <= 90, e.longitude.isFinite, abs(e.longitude) <= 180 else {
            throw StoreError.invalidEntry(index: index, time: e.time.iso8601(), reason: "its position is out of range")
        }
    }

    /// Nothing to roll back: a failed convert removes the whole spool.
    public func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T { try body() }

    // MARK: - SessionSource

    /// Region transitions and visits read with the entries (gpslog's own exports): a few a day, kept in memory.
    private var transitionsByID: [String: [Transition]] = [:]
    private var visitsByID: [String: [Visit]] = [:]

    /// Keeps the transition in memory for `transitions(of:)`; returns 0, not a key.
    @discardableResult
    public func addTransition(_ transition: Transition, to sessionID: String) throws -> Int64 {
        transitionsByID[sessionID, default: []].append(transition)
        return 0
    }

    /// Keeps the visit in memory for `visits(of:)`; returns 0, not a key.
    @discardableResult
    public func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64 {
        visitsByID[sessionID, default: []].append(visit)
        return 0
    }

    /// The session's visits by arrival.
    public func visits(of sessionID: String) throws -> [Visit] {
        (visitsByID[sessionID] ?? []).enumerated().sorted {
            ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset)
        }
        .map(\.element)
    }

    /// The session's transitions in time order.
    public func transitions(of sessionID: String) throws -> [Transition] {
        // In file order within a time, as the store orders them.
        (transitionsByID[sessionID] ?? []).enumerated().sorted {
            ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
        }
        .map(\.element)
    }

    /// The session's marks in time order (they are in it: a session whose marks are not sets `needsSorting`).
    public func forEachMark(of sessionID: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void)
        throws
    {
        guard let i = indexByID[sessionID] else { return }
        try marks.flush()
        var cursor = SpoolCursor(descriptor: marks.descriptor, ranges: sessions[i].markRanges)
        while let mark = try cursor.next() {
            if let to, mark.time > to { break }
            if from.map({ mark.time >= $0 }) ?? true { try body(mark) }
        }
    }

    /// Every row of the session (track and marks merged in time order, ties in insertion order), within the range.
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void
    ) throws {
        guard let i = indexByID[sessionID] else { return }
        try track.flush()
        try marks.flush()
        var marks = SpoolCursor(descriptor: self.marks.descriptor, ranges: sessions[i].markRanges)
        var mark = try marks.next()
        let inRange = { (e: Entry) in (from.map { e.time >= $0 } ?? true) && (to.map { e.time <= $0 } ?? true) }
        var reader = SpoolReader(descriptor: track.descriptor)
        for range in sessions[i].ranges {
            try reader.read(range) { e in
                while let m = mark, (m.time, m.key ?? 0) < (e.time, e.key ?? 0) {
                    if inRange(m) { try body(m) }
                    mark = try marks.next()
                }
                if inRange(e) { try body(e) }
            }
        }
        while let m = mark {
            if inRange(m) { try body(m) }
            mark = try marks.next()
        }
    }
}
