// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// A session an import would make (`import --dry-run`).
public struct PlannedSession: Sendable, Equatable {
    /// The session's name, as the import would store it (trimmed, cut to the length limit).
    public var name: String
    /// Track points: entries that are neither marks nor heading changes.
    public var points: Int
    /// Marked entries (waypoints, placemarks).
    public var marks: Int
    /// Heading-change entries.
    public var headings: Int
    /// Places stayed at (Google's place visits).
    public var visits = 0
    /// When the session would start.
    public var start: Timestamp
    /// When the session would end; nil until the import finishes it.
    public var end: Timestamp?
}

/// Where a dry run imports to: sessions and entries are counted, nothing is kept or written.
final class DryRunTarget: SessionSink {
    private var sessions: [String: PlannedSession] = [:]
    private var key: Int64 = 0

    func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws
        -> Session
    {
        let name = name.trimmedWhitespace.truncated(to: TextLimit.sessionName)
        guard !name.isEmpty else { throw StoreError.invalidSession(reason: "the name is empty") }
        key += 1
        let id = Identifier.uuidV4()
        sessions[id] = PlannedSession(name: name, points: 0, marks: 0, headings: 0, start: start, end: nil)
        return Session(key: key, id: id, name: name, start: start, end: nil, mode: mode)
    }

    func hasSession(id: String) throws -> Bool { sessions[id] != nil }

    @discardableResult
    func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        for (index, e) in entries.enumerated() {
            // The rules the store checks, so a dry run refuses what the import would.
            if let rule = Store.brokenRule(e) {
                throw StoreError.invalidEntry(
                    index: index, time: e.time.iso8601(), reason: "CHECK constraint failed: \(rule)")
            }
            if e.marked {
                sessions[sessionID]?.marks += 1
            } else if e.isHeadingChanged {
                sessions[sessionID]?.headings += 1
            } else {
                sessions[sessionID]?.points += 1
            }
        }
        return []
    }

    func finishSession(id: String, end: Timestamp) throws { sessions[id]?.end = end }

    func renameSession(id: String, to name: String) throws { sessions[id]?.name = name }

    func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64 {
        sessions[sessionID]?.visits += 1
        return 0
    }

    func setSessionStart(id: String, start: Timestamp) throws { sessions[id]?.start = start }

    func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T { try body() }

    func planned(id: String) -> PlannedSession? { sessions[id] }
}
