// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    static let sessionColumns = "Key, ID, Name, StartTime, EndTime, Mode, Trip, StoppedAutomatically"

    static func readSession(_ s: Statement, offset: Int32 = 0) -> Session {
        Session(
            key: s.int64(at: offset) ?? 0, id: s.string(at: offset + 1) ?? "", name: s.string(at: offset + 2) ?? "",
            start: Timestamp(milliseconds: s.int64(at: offset + 3) ?? 0),
            end: s.int64(at: offset + 4).map { Timestamp(milliseconds: $0) },
            mode: s.string(at: offset + 5).flatMap(TripMode.init(rawValue:)), isTrip: s.int64(at: offset + 6) == 1,
            stoppedAutomatically: s.int64(at: offset + 7).map { $0 == 1 })
    }

    /// Creates a session that is recording (no end time yet).
    /// - Parameters:
    ///   - name: its name, trimmed of whitespace and cut to `TextLimit.sessionName`.
    ///   - start: its start time.
    ///   - mode: its trip mode; nil: none.
    ///   - id: a UUID string; a random one when nil.
    /// - Returns: the new session, as stored.
    /// - Throws: `StoreError.invalidSession` for an empty name or a malformed id.
    @discardableResult
    public func createSession(name: String, start: Timestamp, mode: TripMode? = nil, id: String? = nil) throws
        -> Session
    {
        try createSession(name: name, start: start, mode: mode, id: id, trip: false)
    }

    /// Creates a session that is recording, a trip or not (see `createSession(name:start:mode:id:)`).
    @discardableResult
    public func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws
        -> Session
    {
        return try sqlite {
            let id = (id ?? Identifier.uuidV4()).lowercased()
            guard Identifier.isUUID(id) else { throw StoreError.invalidSession(reason: "'\(id)' is not a UUID") }
            let name = name.trimmedWhitespace.truncated(to: TextLimit.sessionName)
            guard !name.isEmpty else { throw StoreError.invalidSession(reason: "the name is empty") }
            do {
                try database.run(
                    "INSERT INTO Sessions (ID, Name, StartTime, Mode, Trip) VALUES (?, ?, ?, ?, ?)",
                    [
                        .text(id), .text(name), .integer(start.milliseconds), SQLiteValue(mode?.rawValue),
                        SQLiteValue(trip),
                    ])
            } catch let error as SQLiteError where error.isConstraintViolation {
                throw StoreError.invalidSession(reason: StoreError.sessionReason(error))
            }
            return Session(
                key: database.lastInsertRowID, id: id, name: name, start: start, end: nil, mode: mode, isTrip: trip)
        }
    }

    /// Says how a trip ended: by the automatic pause, or by `trip stop` (Overland's `stopped_automatically`).
    public func setStoppedAutomatically(_ automatically: Bool, of sessionID: String) throws {
        try sqlite {
            try database.run(
                "UPDATE Sessions SET StoppedAutomatically = ? WHERE ID = ?",
                [SQLiteValue(automatically), .text(sessionID)])
        }
    }

    /// Ends a session at `end`.
    public func finishSession(id: String, end: Timestamp) throws {
        try sqlite {
            if checksInSwift, let s = try session(id: id), end < s.start {
                throw StoreError.invalidSession(reason: "CHECK constraint failed: session_ends_after_start")
            }
            do {
                try database.run(
                    "UPDATE Sessions SET EndTime = ? WHERE ID = ?", [.integer(end.milliseconds), .text(id)])
            } catch let error as SQLiteError where error.isConstraintViolation {
                throw StoreError.invalidSession(reason: StoreError.sessionReason(error))
            }
        }
    }

    /// Moves the start of a session that is not finished yet (an import whose file holds an earlier point after
    /// later ones: Google's Timeline export lists its raw signals after every segment).
    public func setSessionStart(id: String, start: Timestamp) throws {
        try sqlite {
            try database.run(
                "UPDATE Sessions SET StartTime = ? WHERE ID = ? AND EndTime IS NULL",
                [.integer(start.milliseconds), .text(id)])
        }
    }

    /// Keeps what a recording refused before sampling in the session's row (written when the session ends, so a
    /// commit costs no extra page).
    public func setDroppedFixes(_ dropped: DroppedFixes, of sessionID: String) throws {
        try sqlite {
            try database.run(
                "UPDATE Sessions SET DroppedPosition = ?, DroppedTime = ?, DroppedSpeed = ? WHERE ID = ?",
                [
                    .integer(Int64(dropped.position)), .integer(Int64(dropped.time)), .integer(Int64(dropped.speed)),
                    .text(sessionID),
                ])
        }
    }

    /// What a recording refused before sampling; nil when the session was not recorded through the gate.
    public func droppedFixes(of sessionID: String) throws -> DroppedFixes? {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT DroppedPosition, DroppedTime, DroppedSpeed FROM Sessions WHERE ID = ?")
            defer { s.reset() }
            try s.bind(sessionID, at: 1)
            guard try s.step(), let position = s.int(at: 0), let time = s.int(at: 1), let speed = s.int(at: 2) else {
                return nil
            }
            return DroppedFixes(position: position, time: time, speed: speed)
        }
    }

    /// Ends a session at its newest entry (its start when it has none): how a session left open by a recorder
    /// that died is closed.
    /// - Returns: the end time written.
    @discardableResult
    public func finishSessionAtLastEntry(_ session: Session) throws -> Timestamp {
        try sqlite {
            let newest = try database.scalar(
                "SELECT MAX(TimeStamp) FROM EntryRows WHERE SessionKey = ?", [.integer(session.key)])?.int64
            let end = max(session.start, newest.map { Timestamp(milliseconds: $0) } ?? session.start)
            try finishSession(id: session.id, end: end)
            return end
        }
    }

    /// The device `serve` writes this session for ('overland:DEVICE', 'owntracks:USER/DEVICE'), or nil for a
    /// recorded or imported session.
    public func receiver(of session: Session) throws -> String? {
        try sqlite {
            try database.scalar("SELECT Receiver FROM Sessions WHERE Key = ?", [.integer(session.key)])?.string
        }
    }

    /// Renames a session.
    public func renameSession(id: String, to name: String) throws {
        try sqlite {
            let name = name.trimmedWhitespace.truncated(to: TextLimit.sessionName)
            guard !name.isEmpty else { throw StoreError.invalidSession(reason: "the new name is empty") }
            try database.run("UPDATE Sessions SET Name = ? WHERE ID = ?", [.text(name), .text(id)])
        }
    }

    /// Deletes a session and (by the foreign key's ON DELETE CASCADE) all its entries, in one transaction.
    /// - Returns: how many entries were deleted with it.
    @discardableResult
    public func deleteSession(id: String) throws -> Int {
        return try sqlite {
            try database.transaction {
                let count = try entryCount(of: id)
                // The session's kept figures go with it (a trigger, Schema/019_session_summaries.sql).
                try database.run("DELETE FROM Sessions WHERE ID = ?", [.text(id)])
                return count
            }
        }
    }

    /// The session with exactly this id.
    public func session(id: String) throws -> Session? {
        return try sqlite {
            let s = try database.cachedStatement("SELECT \(Store.sessionColumns) FROM Sessions WHERE ID = ?")
            defer { s.reset() }
            try s.bind(id, at: 1)
            return try s.step() ? Store.readSession(s) : nil
        }
    }

    /// All sessions, oldest first.
    public func sessions() throws -> [Session] {
        return try sqlite {
            let s = try database.cachedStatement("SELECT \(Store.sessionColumns) FROM Sessions ORDER BY StartTime, Key")
            defer { s.reset() }
            var result: [Session] = []
            while try s.step() { result.append(Store.readSession(s)) }
            return result
        }
    }

    /// Sessions still recording (no end time).
    public func openSessions() throws -> [Session] {
        return try sqlite {
            try sessions().filter { $0.end == nil }
        }
    }

    /// Finds a session by its name, its id, or a unique prefix of its id (case-insensitive for ids).
    ///
    /// An exact id wins, then a unique exact name, then a unique id prefix.
    /// - Throws: `StoreError.sessionNotFound` or `StoreError.ambiguousSession`, both listing candidates.
    public func resolveSession(_ query: String) throws -> Session {
        return try sqlite { try Store.resolve(query, among: try sessions()) }
    }

    /// `resolveSession`'s rules over `all` only (the sessions one viewer may see, or another store's sessions): an
    /// exact id, else a unique name, else a unique id prefix.
    /// - Throws: `StoreError.sessionNotFound` or `.ambiguousSession`, naming the candidates.
    public static func resolve(_ query: String, among all: [Session]) throws -> Session {
        let lower = query.lowercased()
        if let exact = all.first(where: { $0.id == lower }) { return exact }
        let byName = all.filter { $0.name == query }
        if byName.count == 1 { return byName[0] }
        if byName.count > 1 {
            throw StoreError.ambiguousSession(query: query, candidates: byName.map(Store.describe))
        }
        let byPrefix = lower.isEmpty ? [] : all.filter { $0.id.hasPrefix(lower) }
        if byPrefix.count == 1 { return byPrefix[0] }
        if byPrefix.count > 1 {
            throw StoreError.ambiguousSession(query: query, candidates: byPrefix.map(Store.describe))
        }
        // Nothing matched: suggest names containing the query, else the latest sessions.
        let similar = all.filter { $0.name.lowercased().contains(lower) }
        let candidates = similar.isEmpty ? Array(all.suffix(10)) : similar
        throw StoreError.sessionNotFound(query: query, candidates: candidates.map(Store.describe))
    }

    /// One line naming a session: short id, name and start.
    public static func describe(_ s: Session) -> String {
        "\(s.shortID)  \(s.name.visible)  (started \(s.start.iso8601()), id \(s.id))"
    }
}
