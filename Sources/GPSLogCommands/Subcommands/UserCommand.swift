// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// People who send to `gpslog serve` from their devices (`gpslog device`).
    struct UserCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user",
            abstract: "Add, list and remove the people who send to `gpslog serve`, and set their passwords.",
            discussion: """
                A user has devices (`gpslog device add USER/DEVICE`), each with its own token, and owns the \
                sessions serve receives from them. Passwords (for the web view) are kept as Argon2id hashes.
                """,
            subcommands: [UserAdd.self, UserList.self, UserRemove.self, UserPassword.self],
            defaultSubcommand: UserList.self)
    }
}
