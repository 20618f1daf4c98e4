// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// `gpslog user list`.
    struct UserList: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let users = try store.users()
            guard !users.isEmpty else {
                print("No users (gpslog user add NAME).")
                return
            }
            let width = max(4, users.map(\.name.count).max() ?? 0)
            print("USER".padding(toLength: width, withPad: " ", startingAt: 0) + "  ADMIN  PASSWORD  DEVICES  CREATED")
            for u in users {
                print(
                    u.name.visible.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + (u.isAdmin ? "yes  " : "no   ") + "  " + (u.hasPassword ? "yes     " : "no      ") + "  "
                        + String(u.devices).padding(toLength: 7, withPad: " ", startingAt: 0) + "  "
                        + u.created.iso8601())
            }
        }
    }
}
