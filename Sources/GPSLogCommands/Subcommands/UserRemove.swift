// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogStore

extension GPSLog {
    /// `gpslog user remove`.
    struct UserRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a user and their devices (their tokens stop working at once; their sessions stay).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            guard try store.removeUser(name) else { throw AccountError.noUser(name) }
            print("Removed user '\(name.visible)' and their devices.")
        }
    }
}
