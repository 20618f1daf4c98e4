// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogArgon2
import GPSLogModel

extension GPSLog {
    /// `gpslog user add`.
    struct UserAdd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a user; asks for a password on a terminal, else reads it from --password-file or stdin.",
            discussion: """
                NAME is one word of letters, digits, '.', '_' and '-' (it is the USER of owntracks/USER/DEVICE). \
                Sessions serve received before from USER/... devices become the user's.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String
        @Flag(help: "An administrator (sees every session in the web view).") var admin = false
        @OptionGroup var password: PasswordOptions

        func run() throws {
            let hash = try password.hash(for: name)
            let store = try global.openStore()
            defer { store.close() }
            try store.addUser(
                name, passwordHash: hash, isAdmin: admin, at: Timestamp(seconds: Date().timeIntervalSince1970))
            print("Added user '\(name)'\(admin ? " (admin)" : "")\(hash == nil ? " without a password" : "").")
        }
    }
}
