// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem
import PostgresNIO

/// What went wrong with a PostgreSQL database, in words that say where and what to do. The database is named by its
/// URL without the password; the server's own message (and its detail and hint) is kept whole.
public enum PostgresError: LocalizedError, Equatable {
    /// A `postgres://` URL gpslog cannot read: the URL (password masked) and why.
    case badURL(String, String)
    /// `--postgres-password-file` cannot be used: the path and why.
    case passwordFile(String, String)
    /// No connection: the database and the reason (refused, no such socket, TLS, a timeout).
    case cannotConnect(database: String, reason: String)
    /// The server answered an error: the database, what gpslog was doing, and the server's words.
    case server(database: String, doing: String, message: String, code: String)
    /// PostGIS is not installed in the database, and gpslog may not install it.
    case postgisMissing(database: String, message: String)
    /// The database was set up by a newer gpslog.
    case schemaTooNew(database: String, found: Int, supported: Int)
    /// The connection broke while gpslog used it.
    case connectionLost(database: String, doing: String)

    /// Something gpslog keeps only in its SQLite database (the per-day figures of the statistics).
    case notKept(String)

    /// What went wrong, where, and what to do, for people; never the password.
    public var errorDescription: String? {
        switch self {
        case .notKept(let what):
            return
                "The \(what) are kept in gpslog's SQLite database, not in PostgreSQL: run gpslog without --store postgres:// to see them."
        case .badURL(let url, let why):
            return "The PostgreSQL URL \(url) cannot be used: \(why)."
        case .passwordFile(let path, let why):
            return "The password file \(path) cannot be used: \(why). Write the password alone in it (mode 0600)."
        case .cannotConnect(let database, let reason):
            return
                "Cannot connect to \(database): \(reason). Check that the server runs and takes connections there (host, port, pg_hba.conf), and the password ($PGPASSWORD or --postgres-password-file)."
        case .server(let database, let doing, let message, let code):
            return "PostgreSQL at \(database) refused \(doing): \(message) (SQLSTATE \(code))."
        case .postgisMissing(let database, let message):
            return
                "PostGIS is not available in \(database) (\(message)): install it on the server (Debian: postgresql-15-postgis-3) and have the database's owner or a superuser run CREATE EXTENSION postgis; then run gpslog again."
        case .schemaTooNew(let database, let found, let supported):
            return
                "\(database) holds gpslog's PostgreSQL schema version \(found), newer than this gpslog knows (\(supported)): use a newer gpslog."
        case .connectionLost(let database, let doing):
            return
                "The connection to \(database) broke while \(doing): nothing of that step was committed; run it again."
        }
    }

    /// The one funnel from postgres-nio's errors to ours. `PSQLError`'s own description hides the server's message
    /// (it may quote data); here the message, detail and hint are what the user needs, and a password is never in
    /// them (the server does not repeat it, and `database` is the masked URL).
    static func from(_ error: any Error, database: String, doing: String) -> PostgresError {
        if let known = error as? PostgresError { return known }
        guard let psql = error as? PSQLError else {
            return .cannotConnect(database: database, reason: describeForPeople(error, peer: database))
        }
        if let info = psql.serverInfo, let message = info[.message] {
            var words = message
            if let detail = info[.detail] { words += "; \(detail)" }
            if let hint = info[.hint] { words += " (hint: \(hint))" }
            return .server(database: database, doing: doing, message: words, code: info[.sqlState] ?? "?")
        }
        switch psql.code {
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            return .connectionLost(database: database, doing: doing)
        case .sslUnsupported:
            return .cannotConnect(database: database, reason: "the server does not offer TLS (sslmode=require)")
        default:
            let underlying = describeForPeople(psql, peer: database)
            return .cannotConnect(database: database, reason: underlying)
        }
    }

    /// The SQLSTATE of a server error (`23505`: a unique constraint), else nil.
    var sqlState: String? {
        if case .server(_, _, _, let code) = self { return code }
        return nil
    }
}
