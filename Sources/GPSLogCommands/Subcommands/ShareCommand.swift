// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// Links that show one session in `gpslog serve`'s web view without a login.
    struct ShareCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share",
            abstract: "Share one session read-only through serve's web view: a link, until it expires or is revoked.",
            discussion: """
                `gpslog share SESSION` prints a link (http://HOST:PORT/s/TOKEN, alone on the last line). Whoever has \
                it sees that session's page, and a recording's live updates, without a login; nothing else. The \
                database keeps only the token's SHA-256. `gpslog share list` lists the links, `gpslog share revoke \
                ID` ends one.
                """,
            subcommands: [ShareAdd.self, ShareList.self, ShareRevoke.self],
            defaultSubcommand: ShareAdd.self)
    }
}
