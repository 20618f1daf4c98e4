// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// The sessions and rows of a PostgreSQL database as the web view reads them (`serve --store postgres://`): the
/// sessions of every `serve` process and every `gpslog sync` into it, one history for several machines.
///
/// PostgreSQL rows are known by UUIDs; the view's cursors and keys are 64-bit numbers, so a row's key here is the
/// first 64 bits of its UUID (`PostgresKey`): stable, the same in every process, and used only to order rows of the
/// same time and to carry on after a row. Rows of one time come in that key's order, not in insertion order.
/// Long reads are paged (`pageSize` rows a query, after the last row's time and key), so memory stays flat.
public final class PostgresSessionReader: SessionCatalog, SessionReader, ViewerScoped {
    /// Rows read per query by the streaming reads.
    public static let pageSize = 2_000

    let database: PostgresDatabase
    /// The name of the user whose key this is (from the local accounts database); nil: no such user.
    let userName: (Int64) throws -> String?

    /// Connects to `location`. `userName` names a user by their key, for `sessions(visibleTo: .user(KEY))`: a
    /// user sees the sessions of their own devices (`overland:USER/DEVICE`, `owntracks:USER/DEVICE`).
    /// - Throws: `PostgresError` when the connection fails.
    public init(_ location: PostgresLocation, userName: @escaping (Int64) throws -> String?) throws {
        database = try PostgresDatabase(location)
        self.userName = userName
    }

    /// Closes the connection.
    public func close() { database.close() }

    // MARK: - Sessions

    static let sessionColumns = "id::text, name, gpslog_ms(start_time), gpslog_ms(end_time), mode, is_trip"

    static func session(_ row: PostgresRow) throws -> Session {
        let (id, name, start, end, mode, trip) = try row.decode((String, String, Int64, Int64?, String?, Bool).self)
        return Session(
            key: PostgresKey.key(of: id), id: id, name: name, start: Timestamp(milliseconds: start),
            end: end.map(Timestamp.init(milliseconds:)), mode: mode.flatMap(TripMode.init(rawValue:)), isTrip: trip)
    }

    private func sessions(where clause: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [Session] {
        try database.query(
            "SELECT \(Self.sessionColumns) FROM sessions WHERE \(clause) ORDER BY start_time, id", binds,
            doing: "reading the sessions"
        ).map(Self.session)
    }

    /// Every session, oldest first.
    public func sessions() throws -> [Session] { try sessions(where: "true") }

    /// The session with this id; nil when there is none (or the id is not a UUID).
    public func session(id: String) throws -> Session? {
        guard UUID(uuidString: id) != nil else { return nil }
        var binds = PostgresBindings()
        binds.append(id.lowercased())
        return try sessions(where: "id = $1::uuid", binds).first
    }

    /// The session a name, id or id prefix names.
    public func resolveSession(_ query: String) throws -> Session {
        try Store.resolve(query, among: try sessions())
    }

    /// Sessions not finished yet.
    public func openSessions() throws -> [Session] { try sessions(where: "end_time IS NULL") }

    /// The sessions `viewer` may see: all for an admin; a user's own devices' sessions; none for a share link (share
    /// links name sessions of the SQLite database).
    public func sessions(visibleTo viewer: SessionViewer) throws -> [Session] {
        switch viewer {
        case .admin: return try sessions()
        case .shared: return []
        case .user(let key):
            guard let name = try userName(key) else { return [] }
            var binds = PostgresBindings()
            binds.append("overland:\(name)/")
            binds.append("owntracks:\(name)/")
            return try sessions(where: "starts_with(receiver, $1) OR starts_with(receiver, $2)", binds)
        }
    }

    /// `resolveSession` among the sessions `viewer` may see.
    public func resolveSession(_ query: String, visibleTo viewer: SessionViewer) throws -> Session {
        try Store.resolve(query, among: try sessions(visibleTo: viewer))
    }

    /// A session's numbers, summed from its kept days (`refreshDayFigures` counts the days written since the last
    /// read first). Its length is the sum of great-circle steps between consecutive track points, each rounded to
    /// nanometres, as the SQLite store's.
    public func summary(of session: Session) throws -> SessionSummary {
        var binds = PostgresBindings()
        binds.append(session.id)
        var summary = SessionSummary(session: session)
        try keptSummaries(where: "s.id = $1::uuid", binds)[session.id]?.apply(to: &summary)
        return summary
    }

    /// Every session's numbers, oldest first (one query of the kept days for all of them).
    public func summaries() throws -> [SessionSummary] {
        let sessions = try self.sessions()
        let sums = try keptSummaries(where: "true")
        return sessions.map { session in
            var summary = SessionSummary(session: session)
            sums[session.id]?.apply(to: &summary)
            return summary
        }
    }

    /// Renames a session.
    public func renameSession(id: String, to name: String) throws {
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(name)
        try database.execute(
            "UPDATE sessions SET name = $2, updated_at = now() WHERE id = $1::uuid", binds, doing: "renaming a session")
    }

    /// Deletes a session and its rows; returns how many entries went with it.
    @discardableResult
    public func deleteSession(id: String) throws -> Int {
        var binds = PostgresBindings()
        binds.append(id)
        return try database.transaction(doing: "deleting a session") {
            let count =
                try database.query(
                    "SELECT count(*)::int8 FROM entries WHERE session_id = $1::uuid", binds, doing: "deleting a session"
                ).first?.decode(Int64.self) ?? 0
            try database.execute("DELETE FROM sessions WHERE id = $1::uuid", binds, doing: "deleting a session")
            return Int(count)
        }
    }
}

/// A PostgreSQL row's 64-bit key: the first 16 hex digits of its UUID, as a signed number; in SQL, `sql(column)`.
public enum PostgresKey {
    /// The key of the row whose UUID is `uuid` (0 for a malformed one).
    public static func key(of uuid: String) -> Int64 {
        let hex = uuid.filter { $0 != "-" }.prefix(16)
        return Int64(bitPattern: UInt64(hex, radix: 16) ?? 0)
    }

    /// The same key computed by PostgreSQL from the uuid column `column`.
    static func sql(_ column: String) -> String {
        "('x' || left(replace(\(column)::text, '-', ''), 16))::bit(64)::int8"
    }
}
