// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Who looks at the web view, and so which sessions exist for them: every query the view makes goes through
/// `sessions(visibleTo:)` or `resolveSession(_:visibleTo:)`, so a session another may not see is "no such session".
public enum SessionViewer: Sendable, Hashable, CustomStringConvertible {
    /// Sees every session: an admin user, or the holder of the serve token (the one-person setup).
    case admin
    /// Sees only the sessions whose `Owner` is this user (their key in `Users`).
    case user(Int64)
    /// Sees only this one session (its key), through a share link.
    case shared(Int64)

    /// For cache keys: `admin`, `user:KEY`, `shared:KEY`.
    public var description: String {
        switch self {
        case .admin: "admin"
        case .user(let key): "user:\(key)"
        case .shared(let key): "shared:\(key)"
        }
    }
}

/// What `/login` needs of a user: their key, whether they are an admin, their Argon2id hash.
public struct ViewUser: Sendable, Equatable {
    /// The row in `Users`.
    public var key: Int64
    /// Sees every session.
    public var isAdmin: Bool
    /// Argon2id's encoded string; nil: no web view login.
    public var passwordHash: String?
}

/// One share link, never its token.
public struct SessionShare: Sendable, Equatable {
    /// The row's key: what `gpslog share revoke` takes.
    public var id: Int64
    /// The shared session's id.
    public var sessionID: String
    /// The shared session's name.
    public var sessionName: String
    /// When `gpslog share` made it.
    public var created: Timestamp
    /// When it stops working.
    public var expires: Timestamp
    /// When `gpslog share revoke` ended it; nil: not revoked.
    public var revoked: Timestamp?
}

/// The web view's logins and share links (`Schema/023_view_logins.sql`), and the sessions a viewer may see.
extension Store {
    /// The sessions `viewer` may see, oldest first: all for an admin, a user's own (`Sessions.Owner`), or the shared one.
    public func sessions(visibleTo viewer: SessionViewer) throws -> [Session] {
        let (clause, value): (String, Int64?) =
            switch viewer {
            case .admin: ("1", nil)
            case .user(let key): ("Owner = ?1", key)
            case .shared(let key): ("Key = ?1", key)
            }
        return try sqlite {
            let s = try database.cachedStatement(
                "SELECT \(Store.sessionColumns) FROM Sessions WHERE \(clause) ORDER BY StartTime, Key")
            defer { s.reset() }
            if let value { try s.bind(.integer(value), at: 1) }
            var result: [Session] = []
            while try s.step() { result.append(Store.readSession(s)) }
            return result
        }
    }

    /// `resolveSession` among the sessions `viewer` may see only: another's session is `sessionNotFound`, and an id
    /// prefix is never ambiguous because of a session the viewer cannot see.
    public func resolveSession(_ query: String, visibleTo viewer: SessionViewer) throws -> Session {
        try sqlite { try Store.resolve(query, among: try sessions(visibleTo: viewer)) }
    }

    /// The name of the user whose key is `key`; nil when there is none (removed since).
    public func userName(key: Int64) throws -> String? {
        try sqlite { try database.scalar("SELECT Name FROM Users WHERE Key = ?", [.integer(key)])?.string }
    }

    /// True when some user has a password: the web view then asks for a user name and password.
    public func hasPasswords() throws -> Bool {
        try sqlite {
            try database.scalar("SELECT EXISTS (SELECT 1 FROM Users WHERE PasswordHash IS NOT NULL)")?.int64 == 1
        }
    }

    /// The user `name`; nil for none.
    public func viewUser(_ name: String) throws -> ViewUser? {
        try sqlite {
            let s = try database.cachedStatement("SELECT Key, IsAdmin, PasswordHash FROM Users WHERE Name = ?")
            defer { s.reset() }
            try s.bind(.text(name), at: 1)
            guard try s.step() else { return nil }
            return ViewUser(key: s.requiredInt64(at: 0), isAdmin: s.int(at: 1) == 1, passwordHash: s.string(at: 2))
        }
    }

    /// Keeps a login: the SHA-256 of its cookie, its user (nil: the serve token's holder), until `expires`. Logins
    /// expired by `now` are dropped on the way.
    public func addViewLogin(tokenHash: [UInt8], user: Int64?, at now: Timestamp, expires: Timestamp) throws {
        try write {
            try database.run("DELETE FROM ViewLogins WHERE ExpiresAt <= ?", [.integer(now.milliseconds)])
            try database.run(
                "INSERT INTO ViewLogins (TokenHash, User, CreatedAt, ExpiresAt) VALUES (?, ?, ?, ?)",
                [.blob(tokenHash), SQLiteValue(user), .integer(now.milliseconds), .integer(expires.milliseconds)])
        }
    }

    /// Who the login with this cookie hash is, while it has not expired; nil otherwise. An admin user and the
    /// token's holder are `.admin`.
    public func viewLogin(tokenHash: [UInt8], at now: Timestamp) throws -> SessionViewer? {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT l.User, u.IsAdmin FROM ViewLogins l LEFT JOIN Users u ON u.Key = l.User
                WHERE l.TokenHash = ? AND l.ExpiresAt > ? AND (l.User IS NULL OR u.Key IS NOT NULL)
                """)
            defer { s.reset() }
            try s.bind(.blob(tokenHash), at: 1)
            try s.bind(.integer(now.milliseconds), at: 2)
            guard try s.step() else { return nil }
            guard let user = s.int64(at: 0), s.int(at: 1) != 1 else { return .admin }
            return .user(user)
        }
    }

    /// Ends a login (`/logout`).
    public func removeViewLogin(tokenHash: [UInt8]) throws {
        try write { try database.run("DELETE FROM ViewLogins WHERE TokenHash = ?", [.blob(tokenHash)]) }
    }

    /// Keeps a share link to `session` (its id) until `expires`; returns its id.
    public func addShare(session: String, tokenHash: [UInt8], at now: Timestamp, expires: Timestamp) throws -> Int64 {
        try write {
            guard let s = try self.session(id: session) else {
                throw StoreError.sessionNotFound(query: session, candidates: [])
            }
            try database.run(
                "INSERT INTO SessionShares (TokenHash, Session, CreatedAt, ExpiresAt) VALUES (?, ?, ?, ?)",
                [.blob(tokenHash), .integer(s.key), .integer(now.milliseconds), .integer(expires.milliseconds)])
            return database.lastInsertRowID
        }
    }

    /// The session a share link opens (its key), while the link is neither expired nor revoked; nil otherwise.
    public func sharedSession(tokenHash: [UInt8], at now: Timestamp) throws -> Int64? {
        try sqlite {
            try database.scalar(
                "SELECT Session FROM SessionShares WHERE TokenHash = ? AND ExpiresAt > ? AND RevokedAt IS NULL",
                [.blob(tokenHash), .integer(now.milliseconds)])?.int64
        }
    }

    /// Every share link, oldest first (revoked and expired ones too).
    public func shares() throws -> [SessionShare] {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT h.Key, s.ID, s.Name, h.CreatedAt, h.ExpiresAt, h.RevokedAt
                FROM SessionShares h JOIN Sessions s ON s.Key = h.Session ORDER BY h.Key
                """)
            defer { s.reset() }
            var result: [SessionShare] = []
            while try s.step() {
                result.append(
                    SessionShare(
                        id: s.requiredInt64(at: 0), sessionID: s.string(at: 1) ?? "",
                        sessionName: s.string(at: 2) ?? "",
                        created: Timestamp(milliseconds: s.requiredInt64(at: 3)),
                        expires: Timestamp(milliseconds: s.requiredInt64(at: 4)),
                        revoked: s.int64(at: 5).map { Timestamp(milliseconds: $0) }))
            }
            return result
        }
    }

    /// Revokes a share link; false when there is no such link or it was revoked already.
    public func revokeShare(_ id: Int64, at now: Timestamp) throws -> Bool {
        try write {
            try database.run(
                "UPDATE SessionShares SET RevokedAt = ? WHERE Key = ? AND RevokedAt IS NULL",
                [.integer(now.milliseconds), .integer(id)])
            return database.changes == 1
        }
    }
}
