// SPDX-License-Identifier: MIT
import Crypto
import Foundation
import GPSLogArgon2
import GPSLogModel
import GPSLogStore
import Hummingbird
import NIOPosix

/// Who is looking at the view (a `SessionViewer`), from what a request carries:
///
/// - a share link's token in the path (`/s/TOKEN/...`): that one session, nothing else;
/// - the login cookie: the user who logged in with their password (an admin sees all), or the token's holder (all);
/// - `Authorization: Bearer TOKEN` with the view's token: all;
/// - nothing, on loopback, when there is no token and no user has a password: all (one person on their machine).
///
/// Logins are kept in the database (`ViewLogins`), only as the SHA-256 of their cookie, for `lifetime`: they outlive
/// a restart of serve, and `user remove` ends them.
final class Logins: Sendable {
    private let token: AccessToken?
    let databasePath: String
    /// Opens the store sessions are read from (the database at `databasePath`, or PostgreSQL).
    let sessions: ViewStoreOpener
    /// Cookies get `Secure` (serve listens beyond loopback, presumably behind TLS).
    let secure: Bool
    static let cookieName = "gpslog_view"
    /// How long a login lasts.
    static let lifetime: Int64 = 30 * 86_400_000

    init(token: AccessToken?, databasePath: String, sessions: ViewStoreOpener? = nil, secure: Bool) {
        self.token = token
        self.databasePath = databasePath
        self.sessions = sessions ?? { try Store(path: databasePath) }
        self.secure = secure
    }

    /// The view's data as `request`'s viewer sees it; nil when it must log in (or the share link is not good).
    func data(for request: Request, share: String? = nil) async throws -> ViewData? {
        try await viewer(request, share: share).map { ViewData(open: sessions, viewer: $0) }
    }

    /// The viewer of `request` (see the type's comment); nil: not allowed.
    func viewer(_ request: Request, share: String? = nil) async throws -> SessionViewer? {
        let now = Self.now()
        if let share {
            // A share link: its token alone decides, whoever else the browser is logged in as.
            let hash = Self.hash(share)
            return try await read { store in try store.sharedSession(tokenHash: hash, at: now).map { .shared($0) } }
        }
        if let token, let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") {
            if Self.constantTimeEqual(String(auth.dropFirst(7)), token.secret) { return .admin }
        }
        let cookie = request.cookies[Self.cookieName].map { Self.hash($0.value) }
        let loopback = Self.isLoopbackHost(request.head.authority)
        let open = token == nil
        return try await read { store in
            if let cookie, let viewer = try store.viewLogin(tokenHash: cookie, at: now) { return viewer }
            // No token: serve listens on loopback, and only a page of this machine's may read it. A request for
            // another host name is a web page that pointed its own name at 127.0.0.1 (DNS rebinding), or a proxy.
            if open, loopback, !(try store.hasPasswords()) { return .admin }
            return nil
        }
    }

    /// Whether `/login` asks for a user name and password (some user has one), else for the token.
    func asksForUser() async throws -> Bool { try await read { try $0.hasPasswords() } }

    /// A login cookie for a right user name and password, or a right token; nil for wrong ones. The password is
    /// checked with Argon2id; an unknown user costs the same work, so the time taken does not tell who exists.
    func login(user: String?, secret: String) async throws -> Cookie? {
        let (now, token) = (Self.now(), token)
        let value = Self.randomValue()
        let hash = Self.hash(value)
        let ok: Bool = try await read { store in
            if let user, !user.isEmpty {
                let account = try store.viewUser(user)
                guard let encoded = account?.passwordHash else {
                    _ = try? PasswordHash.verify(secret, encoded: Self.decoy)
                    return false
                }
                guard (try? PasswordHash.verify(secret, encoded: encoded)) == true, let account else { return false }
                try store.addViewLogin(
                    tokenHash: hash, user: account.key, at: now,
                    expires: Timestamp(milliseconds: now.milliseconds + Self.lifetime))
                return true
            }
            guard let token, Self.constantTimeEqual(secret, token.secret) else { return false }
            try store.addViewLogin(
                tokenHash: hash, user: nil, at: now, expires: Timestamp(milliseconds: now.milliseconds + Self.lifetime))
            return true
        }
        guard ok else { return nil }
        return cookie(value, maxAge: Int(Self.lifetime / 1000))
    }

    /// Ends the request's login; the cookie that clears it.
    func logout(_ request: Request) async throws -> Cookie {
        if let value = request.cookies[Self.cookieName]?.value {
            let hash = Self.hash(value)
            try await read { try $0.removeViewLogin(tokenHash: hash) }
        }
        return cookie("", maxAge: 0)
    }

    private func cookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: Self.cookieName, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true,
            sameSite: .strict)
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive { [databasePath] in
            let store = try Store(path: databasePath)
            defer { store.close() }
            return try body(store)
        }
    }

    /// An Argon2id hash of a random password, verified against for an unknown user.
    private static let decoy = (try? PasswordHash.make(randomValue())) ?? ""

    static func now() -> Timestamp { Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)) }

    /// 256 random bits as 64 hex digits.
    static func randomValue() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The SHA-256 kept for a cookie or a share token.
    static func hash(_ value: String) -> [UInt8] { Array(SHA256.hash(data: Array(value.utf8))) }

    /// `127.0.0.1`, `localhost` or `[::1]`, with or without a port (`isLoopbackAuthority`, shared with the other side
    /// of serve).
    static func isLoopbackHost(_ authority: String?) -> Bool { isLoopbackAuthority(authority) }

    /// Compares without stopping at the first difference, so the time taken tells nothing of the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }
}
