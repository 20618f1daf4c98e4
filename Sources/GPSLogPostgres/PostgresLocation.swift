// SPDX-License-Identifier: MIT
import Foundation

/// Where a PostgreSQL database is, from a `postgres://` URL as libpq writes them:
/// `postgres://USER@HOST:PORT/DATABASE`, `postgres://USER@/DATABASE?host=/run/postgresql` (a Unix socket's folder),
/// `postgres:///DATABASE` (the default socket folder), with `?sslmode=disable|prefer|require|verify-full`.
///
/// The password is never printed: `description` masks it. It comes from the URL, else from `--postgres-password-file`,
/// else from `$PGPASSWORD` (see `resolvingPassword`).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How a connection uses TLS (libpq's `sslmode` values gpslog honours).
    public enum TLSMode: String, Sendable, Equatable {
        /// Plain text.
        case disable
        /// TLS when the server offers it, plain text otherwise (libpq's default off loopback).
        case prefer
        /// TLS or no connection; the certificate is not checked (as libpq's `require`).
        case require
        /// TLS with the certificate checked against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The user to log in as: `?user=`, else the URL's, else `$PGUSER`, `$USER`, the login name.
    public var user: String
    /// The password, when one is given (see `resolvingPassword`); `description` leaves it out.
    public var password: String?
    /// A host name or address; nil for a Unix socket.
    public var host: String?
    /// The TCP port, or the number in the socket's file name (`?port=`, the URL's); 5432 by default.
    public var port: Int
    /// The folder of the server's Unix socket (`?host=/path`, or the default when the URL names no host).
    public var socketFolder: String?
    /// The database's name: `?dbname=`, else the URL's path, else the user's name.
    public var database: String
    /// `?sslmode=`, else `prefer` off loopback and `disable` on it; always `disable` on a Unix socket.
    public var tls: TLSMode

    /// The folder Debian's server puts its socket in.
    public static let defaultSocketFolder = "/var/run/postgresql"

    /// Reads a `postgres://` (or `postgresql://`) URL.
    /// - Parameters:
    ///   - text: the URL; a password in it is masked in every error.
    ///   - environment: `$PGUSER` is the user when the URL names none, else `$USER`.
    /// - Throws: `PostgresError.badURL` naming what is wrong.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let masked = PostgresLocation.masking(text)
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"),
            let url = URLComponents(string: text)
        else {
            throw PostgresError.badURL(masked, "write it as postgres://USER@HOST:PORT/DATABASE or postgres:///DATABASE")
        }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        for name in query.keys where !["host", "port", "sslmode", "user", "dbname"].contains(name) {
            throw PostgresError.badURL(masked, "the parameter '\(name)' is not one gpslog knows")
        }
        user =
            query["user"] ?? url.user.flatMap { $0.removingPercentEncoding } ?? environment["PGUSER"]
            ?? environment["USER"] ?? NSUserName()
        password = url.password?.removingPercentEncoding
        let portText = query["port"] ?? url.port.map(String.init) ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw PostgresError.badURL(masked, "the port '\(portText)' is not a number from 1 to 65535")
        }
        self.port = port
        let path = String((url.percentEncodedPath.removingPercentEncoding ?? "").drop(while: { $0 == "/" }))
        database = query["dbname"] ?? (path.isEmpty ? user : path)
        let named = query["host"] ?? url.host.flatMap { $0.isEmpty ? nil : $0 }
        if let named, named.hasPrefix("/") {
            socketFolder = named
        } else if let named {
            host = named.hasPrefix("[") ? String(named.dropFirst().dropLast()) : named
        } else {
            socketFolder = PostgresLocation.defaultSocketFolder
        }
        let defaultTLS: TLSMode = host.map(PostgresLocation.isLoopback) == false ? .prefer : .disable
        let sslmode = query["sslmode"] ?? defaultTLS.rawValue
        switch sslmode {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer
        case "require", "verify-ca": tls = .require
        case "verify-full": tls = .verifyFull
        default:
            throw PostgresError.badURL(masked, "sslmode '\(sslmode)' is not disable, prefer, require or verify-full")
        }
        if socketFolder != nil {
            if tls == .require || tls == .verifyFull {
                throw PostgresError.badURL(masked, "a Unix socket takes no TLS: leave sslmode out, or name a host")
            }
            tls = .disable
        }
    }

    /// The full path of the socket (`FOLDER/.s.PGSQL.PORT`, as libpq makes it).
    public var socketPath: String? { socketFolder.map { "\($0)/.s.PGSQL.\(port)" } }

    /// True for 127.0.0.0/8, ::1 and localhost: where TLS is off unless asked for.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The URL with no password, as logs, errors and `sync`'s cursors name the database.
    public var description: String {
        var hostPart = ""
        if let host { hostPart = (host.contains(":") ? "[\(host)]" : host) + (port == 5432 ? "" : ":\(port)") }
        var text = "postgres://\(user)@\(hostPart)/\(database)"
        var parameters: [String] = []
        if let socketFolder {
            parameters.append("host=\(socketFolder)")
            if port != 5432 { parameters.append("port=\(port)") }
        }
        if host != nil && tls != (PostgresLocation.isLoopback(host!) ? .disable : .prefer) {
            parameters.append("sslmode=\(tls.rawValue)")
        }
        if !parameters.isEmpty { text += "?" + parameters.joined(separator: "&") }
        return text
    }

    /// `text` with any password between `//user:` and `@` replaced by `***` (a URL that did not parse is still
    /// printed in errors).
    public static func masking(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let colon = rest[..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<rest.index(after: colon)]) + "***" + String(rest[at...])
    }

    /// The location with its password: the URL's, else the file's (one trailing newline ignored), else
    /// `$PGPASSWORD`'s; none when none is given (trust or peer authentication).
    public func resolvingPassword(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> PostgresLocation
    {
        var resolved = self
        if password != nil { return resolved }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw PostgresError.passwordFile(file, "it cannot be read")
            }
            var text = String(decoding: data, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            if text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty else { throw PostgresError.passwordFile(file, "it is empty") }
            resolved.password = text
        } else if let env = environment["PGPASSWORD"], !env.isEmpty {
            resolved.password = env
        }
        return resolved
    }
}
