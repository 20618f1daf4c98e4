// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogConfig
import GPSLogPostgres

/// How gpslog logs in to PostgreSQL beside the URL (`sync`, `serve --store`).
struct PostgresOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "File holding the PostgreSQL password (default: the URL's, else $PGPASSWORD; none: trust or peer login).",
            valueName: "path"))
    var postgresPasswordFile: String?

    /// The location of `url`, with its password.
    func location(_ url: String) throws -> PostgresLocation {
        if let file = postgresPasswordFile, PrivateFiles.isReadableByOthers(file) { TokenFileWarning.once(file) }
        return try PostgresLocation(url: url).resolvingPassword(file: postgresPasswordFile)
    }

    /// True for a `postgres://` or `postgresql://` URL (`serve --store`).
    static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }
}
