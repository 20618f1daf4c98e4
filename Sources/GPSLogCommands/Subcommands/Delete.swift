// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Deletes a session and its entries.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a session and all its entries (asks first on a terminal unless --yes).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id, or a unique id prefix.") var session: String
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let found = try store.resolveSession(session)
            let summary = try store.summary(of: found)
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CommandError.confirmationNeeded(
                        "refusing to delete '\(found.name.visible)' (\(found.shortID)) without confirmation: stdin is not a terminal; pass --yes"
                    )
                }
                print(
                    "Delete '\(found.name.visible)' (\(found.shortID)) with its \(summary.entryCount) entries? [y/N] ",
                    terminator: "")
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == "y" || answer == "yes" else {
                    print("Nothing deleted.")
                    return
                }
            }
            let count = try store.deleteSession(id: found.id)
            print("Deleted '\(found.name.visible)' (\(found.shortID)) and its \(count) entries.")
        }
    }
}
