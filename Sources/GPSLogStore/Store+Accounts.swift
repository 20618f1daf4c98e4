// SPDX-License-Identifier: MIT
import FoundationEssentials
import GPSLogModel
import GPSLogSQLite

/// A person who may send from devices to `gpslog serve` (and, next, log in to its web view).
public struct UserAccount: Sendable, Equatable {
    /// One word (see `AccountName`).
    public var name: String
    /// May write as any device, as the holder of `serve --token` does.
    public var isAdmin: Bool
    /// Has a password (an Argon2id hash): can log in to the web view.
    public var hasPassword: Bool
    /// When `user add` made it.
    public var created: Timestamp
    /// Devices, revoked ones included.
    public var devices: Int
}

/// One device of a user, and its token's state; never the token.
public struct DeviceAccount: Sendable, Equatable {
    /// The user's name.
    public var user: String
    /// The device's name, one word.
    public var device: String
    /// When `device add` made it (and its token).
    public var created: Timestamp
    /// When serve last took its token (written at most once a minute); nil: never.
    public var lastUsed: Timestamp?
    /// When `device revoke` refused its token for good; nil: in use.
    public var revoked: Timestamp?
    /// `USER/DEVICE`.
    public var fullName: String { user + "/" + device }
}

/// Whose a device token is: what serve learns from a token's hash.
public struct TokenHolder: Sendable, Equatable {
    /// The row of the device, for `markDeviceUsed`.
    public var deviceKey: Int64
    /// The user's name.
    public var user: String
    /// The device's name.
    public var device: String
    /// The user is an admin.
    public var isAdmin: Bool
    /// When the token was revoked; nil while it is good.
    public var revoked: Timestamp?
}

/// The rules for user and device names: they are MQTT topic levels (`owntracks/USER/DEVICE`) and parts of a received
/// session's key (`owntracks:USER/DEVICE`), so one word without `/`, `+`, `#`, `:` or spaces.
public enum AccountName {
    /// Longest name taken.
    public static let maximumLength = 64

    /// Nil when `name` is a good name; else why not, for people.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > maximumLength { return "is longer than \(maximumLength) characters" }
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "._-".unicodeScalars
                    .contains($0)
        }
        if !allowed { return "may hold only letters a-z, A-Z, digits, '.', '_' and '-'" }
        if name.hasPrefix(".") || name.hasPrefix("-") { return "may not start with '.' or '-'" }
        return nil
    }

    /// `USER/DEVICE` split, each part checked.
    public static func device(_ text: String) throws(AccountError) -> (user: String, device: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .notUserSlashDevice(text) }
        let (user, device) = (String(parts[0]), String(parts[1]))
        try check(user, kind: "user")
        try check(device, kind: "device")
        return (user, device)
    }

    /// Throws `AccountError.badName` unless `name` is a good name.
    public static func check(_ name: String, kind: String) throws(AccountError) {
        if let problem = problem(name) { throw .badName(kind: kind, name: name, problem: problem) }
    }
}

/// Why a user or device command failed: it names the user or device, never a token or a password.
public enum AccountError: LocalizedError, Equatable {
    case badName(kind: String, name: String, problem: String)
    case notUserSlashDevice(String)
    case userExists(String)
    case noUser(String)
    case deviceExists(String)
    case noDevice(String)

    /// What went wrong and what to do.
    public var errorDescription: String? {
        switch self {
        case .badName(let kind, let name, let problem):
            "The \(kind) name '\(name)' \(problem)."
        case .notUserSlashDevice(let text):
            "'\(text)' is not USER/DEVICE (e.g. alice/phone)."
        case .userExists(let name):
            "There is a user '\(name)' already: `gpslog user list` shows them."
        case .noUser(let name):
            "There is no user '\(name)': add one with `gpslog user add \(name)`."
        case .deviceExists(let name):
            "There is a device '\(name)' already: revoke it (`gpslog device revoke \(name)`) or choose another name."
        case .noDevice(let name):
            "There is no device '\(name)': `gpslog device list` shows them."
        }
    }
}

/// Users, their devices and the hashes of the devices' tokens (`Schema/022_accounts.sql`).
extension Store {
    /// Adds a user; its past received sessions (`PROTOCOL:NAME/DEVICE`) become its own.
    /// - Parameters:
    ///   - name: one word (`AccountName`).
    ///   - passwordHash: an Argon2id encoded string, or nil for a user without a web view login.
    ///   - isAdmin: may see every session.
    ///   - now: its creation time.
    /// - Throws: `AccountError` for a bad or taken name; `StoreError` when the database fails.
    public func addUser(_ name: String, passwordHash: String?, isAdmin: Bool, at now: Timestamp) throws {
        try AccountName.check(name, kind: "user")
        try write {
            if try userKey(name) != nil { throw AccountError.userExists(name) }
            try database.run(
                "INSERT INTO Users (Name, PasswordHash, IsAdmin, CreatedAt) VALUES (?, ?, ?, ?)",
                [.text(name), SQLiteValue(passwordHash), .integer(isAdmin ? 1 : 0), .integer(now.milliseconds)])
            // The same reading of Receiver as the triggers' (022_accounts.sql): the text between ':' and the first '/'.
            try database.run(
                """
                UPDATE Sessions SET Owner = ?1
                WHERE Owner IS NULL AND Receiver IS NOT NULL AND substr(Receiver, instr(Receiver, ':') + 1, ?3) = ?2
                """, [.integer(database.lastInsertRowID), .text(name + "/"), .integer(Int64(name.utf8.count + 1))])
        }
    }

    /// Every user, by name.
    public func users() throws -> [UserAccount] {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT u.Name, u.IsAdmin, u.PasswordHash IS NOT NULL, u.CreatedAt,
                    (SELECT COUNT(*) FROM Devices d WHERE d.User = u.Key)
                FROM Users u ORDER BY u.Name
                """)
            defer { s.reset() }
            var users: [UserAccount] = []
            while try s.step() {
                users.append(
                    UserAccount(
                        name: s.string(at: 0) ?? "", isAdmin: s.int(at: 1) == 1, hasPassword: s.int(at: 2) == 1,
                        created: Timestamp(milliseconds: s.requiredInt64(at: 3)), devices: s.int(at: 4) ?? 0))
            }
            return users
        }
    }

    /// Removes a user and their devices (their tokens stop working at once); their sessions stay, without owner.
    /// False when there is no such user.
    public func removeUser(_ name: String) throws -> Bool {
        try write {
            try database.run("DELETE FROM Users WHERE Name = ?", [.text(name)])
            return database.changes == 1
        }
    }

    /// Sets (or with nil clears) a user's password hash; false when there is no such user.
    public func setPasswordHash(_ hash: String?, user: String) throws -> Bool {
        try write {
            try database.run("UPDATE Users SET PasswordHash = ? WHERE Name = ?", [SQLiteValue(hash), .text(user)])
            return database.changes == 1
        }
    }

    /// A user's Argon2id hash (for the web view's login); nil for no such user or no password.
    public func passwordHash(user: String) throws -> String? {
        try sqlite { try database.scalar("SELECT PasswordHash FROM Users WHERE Name = ?", [.text(user)])?.string }
    }

    /// Adds `USER/DEVICE` with the hash of its token. The user must exist; a device name is used once per user, even
    /// revoked (its sessions keep its name).
    public func addDevice(user: String, device: String, tokenHash: [UInt8], at now: Timestamp) throws {
        try AccountName.check(user, kind: "user")
        try AccountName.check(device, kind: "device")
        try write {
            guard let key = try userKey(user) else { throw AccountError.noUser(user) }
            let taken =
                try database.scalar(
                    "SELECT EXISTS (SELECT 1 FROM Devices WHERE User = ? AND Name = ?)", [.integer(key), .text(device)])?
                .int64 == 1
            if taken { throw AccountError.deviceExists(user + "/" + device) }
            try database.run(
                "INSERT INTO Devices (User, Name, TokenHash, CreatedAt) VALUES (?, ?, ?, ?)",
                [.integer(key), .text(device), .blob(tokenHash), .integer(now.milliseconds)])
        }
    }

    /// The devices of `user`, or of everyone, by user and name.
    public func devices(user: String? = nil) throws -> [DeviceAccount] {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT u.Name, d.Name, d.CreatedAt, d.LastUsedAt, d.RevokedAt
                FROM Devices d JOIN Users u ON u.Key = d.User
                WHERE ?1 IS NULL OR u.Name = ?1 ORDER BY u.Name, d.Name
                """)
            defer { s.reset() }
            try s.bind(SQLiteValue(user), at: 1)
            var devices: [DeviceAccount] = []
            let time = { (column: Int32) in s.int64(at: column).map { Timestamp(milliseconds: $0) } }
            while try s.step() {
                devices.append(
                    DeviceAccount(
                        user: s.string(at: 0) ?? "", device: s.string(at: 1) ?? "",
                        created: Timestamp(milliseconds: s.requiredInt64(at: 2)), lastUsed: time(3), revoked: time(4)))
            }
            return devices
        }
    }

    /// Refuses `USER/DEVICE`'s token from now on; false when it was revoked already. A running serve sees it at its
    /// next request.
    public func revokeDevice(user: String, device: String, at now: Timestamp) throws -> Bool {
        try write {
            guard let key = try userKey(user) else { throw AccountError.noUser(user) }
            try database.run(
                "UPDATE Devices SET RevokedAt = ? WHERE User = ? AND Name = ? AND RevokedAt IS NULL",
                [.integer(now.milliseconds), .integer(key), .text(device)])
            if database.changes == 1 { return true }
            let exists =
                try database.scalar(
                    "SELECT EXISTS (SELECT 1 FROM Devices WHERE User = ? AND Name = ?)", [.integer(key), .text(device)])?
                .int64 == 1
            if !exists { throw AccountError.noDevice(user + "/" + device) }
            return false
        }
    }

    /// True when any device was ever added (revoked ones count): serve then takes device tokens and checks who
    /// writes as which device.
    public func hasDevices() throws -> Bool {
        try sqlite { try database.scalar("SELECT EXISTS (SELECT 1 FROM Devices)")?.int64 == 1 }
    }

    /// Whose token has the SHA-256 `hash`; nil for none. One lookup in the unique index of hashes.
    public func tokenHolder(hash: [UInt8]) throws -> TokenHolder? {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT d.Key, u.Name, d.Name, u.IsAdmin, d.RevokedAt
                FROM Devices d JOIN Users u ON u.Key = d.User WHERE d.TokenHash = ?
                """)
            defer { s.reset() }
            try s.bind(.blob(hash), at: 1)
            guard try s.step() else { return nil }
            return TokenHolder(
                deviceKey: s.requiredInt64(at: 0), user: s.string(at: 1) ?? "", device: s.string(at: 2) ?? "",
                isAdmin: s.int(at: 3) == 1, revoked: s.int64(at: 4).map { Timestamp(milliseconds: $0) })
        }
    }

    /// The device `USER/DEVICE` when it exists (for MQTT, where the broker says who publishes): nil for none.
    public func device(user: String, device: String) throws -> DeviceAccount? {
        try devices(user: user).first { $0.device == device }
    }

    /// Notes that the device's token was just used.
    public func markDeviceUsed(_ deviceKey: Int64, at now: Timestamp) throws {
        try write {
            try database.run(
                "UPDATE Devices SET LastUsedAt = ? WHERE Key = ?", [.integer(now.milliseconds), .integer(deviceKey)])
        }
    }

    private func userKey(_ name: String) throws -> Int64? {
        try database.scalar("SELECT Key FROM Users WHERE Name = ?", [.text(name)])?.int64
    }
}
