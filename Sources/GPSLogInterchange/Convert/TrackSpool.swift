// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogSystem

/// A convert's scratch store: entries go to a private temporary file in a compact binary layout and are read back in
/// sequence, marks stay in memory (they are few). `gpslog convert` goes through it instead of a temporary SQLite
/// database because a B-tree insert and a 30-column read per point cost ten times what the whole conversion does
/// otherwise (profiled: SQLite was 45 % of a GPX -> GeoJSON convert); memory stays flat whatever the file size.
///
/// Sessions are read back in insertion order, which is time order when the file is. A session whose track is not
/// in time order sets `needsSorting`; the caller then converts through a temporary `Store`, which sorts.
public final class TrackSpool: ImportTarget, SessionSource {
    private struct SessionInfo {
        var session: Session
        var ranges: [Range<Int64>] = []
        var marks: [Entry] = []
        var lastTrackTime: Timestamp?
    }

    private let path: String
    private let descriptor: Int32
    private var sessions: [SessionInfo] = []
    private var indexByID: [String: Int] = [:]
    private var buffer: [UInt8] = []
    private var flushedBytes: Int64 = 0
    private var nextKey: Int64 = 1
    /// Called with the number of entries of each appended batch (progress bars).
    public var onAppend: ((Int) -> Void)?
    /// True when some session's track is out of time order.
    public private(set) var needsSorting = false

    /// Creates the scratch file in `folder` (mode 0600; removed when the spool is freed).
    public init(folder: String) throws {
        let path = folder + "/spool.bin"
        self.path = path
        do {
            descriptor = try systemCall { open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        } catch {
            throw ExportError.cannotWrite(path: path, reason: error.reason)
        }
        buffer.reserveCapacity(1 << 20)
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    // MARK: - ImportTarget

    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?) throws -> Session {
        let session = try TrackSpool.newSession(
            name: name, start: start, mode: mode, id: id, key: sessions.count + 1, taken: indexByID)
        indexByID[session.id] = sessions.count
        sessions.append(SessionInfo(session: session))
        return session
    }

    public func hasSession(id: String) throws -> Bool { indexByID[id] != nil }

    public func appendEntries(_ entries: [Entry], to sessionID: String) throws {
        guard let i = indexByID[sessionID] else { throw StoreError.invalidSession(reason: "no session \(sessionID)") }
        for (index, var e) in entries.enumerated() {
            try TrackSpool.checkPosition(e, index: index)
            e.key = nextKey
            nextKey += 1
            if e.marked {
                sessions[i].marks.append(e)
                continue
            }
            if let last = sessions[i].lastTrackTime, e.time < last { needsSorting = true }
            sessions[i].lastTrackTime = e.time
            let start = flushedBytes + Int64(buffer.count)
            SpoolRecord.append(e, to: &buffer)
            let end = flushedBytes + Int64(buffer.count)
            if let r = sessions[i].ranges.last, r.upperBound == start {
                sessions[i].ranges[sessions[i].ranges.count - 1] = r.lowerBound..<end
            } else {
                sessions[i].ranges.append(start..<end)
            }
            if buffer.count >= 1 << 20 { try flush() }
        }
        onAppend?(entries.count)
    }

    public func finishSession(id: String, end: Timestamp) throws {
        guard let i = indexByID[id] else { return }
        sessions[i].session.end = end
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

    private func flush() throws {
        do {
            try buffer.withUnsafeBytes { try writeAll(descriptor, $0, at: flushedBytes) }
        } catch let error as SystemCallError {
            throw ExportError.cannotWrite(path: path, reason: error.reason)
        }
        flushedBytes += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: - SessionSource

    public func marks(of sessionID: String) throws -> [Entry] {
        guard let i = indexByID[sessionID] else { return [] }
        return sessions[i].marks.sorted { ($0.time, $0.key ?? 0) < ($1.time, $1.key ?? 0) }
    }

    /// Every row of the session (track and marks merged in time order, ties in insertion order), within the range.
    public func forEachEntry(
        of sessionID: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void
    ) throws {
        guard let i = indexByID[sessionID] else { return }
        try flush()
        let marks = try self.marks(of: sessionID)
        var m = 0
        let inRange = { (e: Entry) in (from.map { e.time >= $0 } ?? true) && (to.map { e.time <= $0 } ?? true) }
        var reader = SpoolReader(descriptor: descriptor)
        for range in sessions[i].ranges {
            try reader.read(range) { e in
                while m < marks.count, (marks[m].time, marks[m].key ?? 0) < (e.time, e.key ?? 0) {
                    if inRange(marks[m]) { try body(marks[m]) }
                    m += 1
                }
                if inRange(e) { try body(e) }
            }
        }
        while m < marks.count {
            if inRange(marks[m]) { try body(marks[m]) }
            m += 1
        }
    }
}

/// Reads records back with large preads into one reused buffer (a record cut by the end of a read moves to the
/// buffer's start; a record larger than the buffer grows it).
struct SpoolReader {
    let descriptor: Int32
    private var chunk: [UInt8]

    init(descriptor: Int32) {
        self.descriptor = descriptor
        chunk = [UInt8](repeating: 0, count: 1 << 20)
    }

    mutating func read(_ range: Range<Int64>, _ body: (Entry) throws -> Void) throws {
        var position = range.lowerBound
        var kept = 0
        while position < range.upperBound {
            if kept == chunk.count { chunk += [UInt8](repeating: 0, count: chunk.count) }
            let want = Int(min(Int64(chunk.count - kept), range.upperBound - position))
            let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + kept, want, off_t(position)) }
            guard n == want else {
                throw ExportError.cannotWrite(path: "(spool)", reason: "short read of the scratch file")
            }
            position += Int64(want)
            let filled = kept + want
            var offset = 0
            try chunk.withUnsafeBytes { all in
                let raw = UnsafeRawBufferPointer(rebasing: all[0..<filled])
                while let (entry, size) = SpoolRecord.decode(raw, at: offset) {
                    offset += size
                    try body(entry)
                }
            }
            kept = filled - offset
            if kept > 0 {
                chunk.withUnsafeMutableBytes {
                    $0.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: kept)
                }
            }
        }
    }
}
