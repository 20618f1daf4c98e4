// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogStore

extension GPSLog {
    /// `gpslog user password`.
    struct UserPassword: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password",
            abstract: "Set a user's password; asks on a terminal, else reads it from --password-file or stdin.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String
        @OptionGroup var password: PasswordOptions

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            // Known before the password is asked for: a typo in the name should not cost typing a password twice.
            guard try store.users().contains(where: { $0.name == name }) else { throw AccountError.noUser(name) }
            let hash = try password.hash(for: name)
            guard try store.setPasswordHash(hash, user: name) else { throw AccountError.noUser(name) }
            print(hash == nil ? "Removed the password of '\(name)'." : "Set the password of '\(name)'.")
        }
    }
}
