// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel

extension GPSLog {
    /// `gpslog share revoke`.
    struct ShareRevoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "End a share link at once (a running serve too, from its next request).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The link's id, as `gpslog share list` shows it.") var id: Int64

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            guard try store.revokeShare(id, at: Timestamp(seconds: Date().timeIntervalSince1970)) else {
                throw ValidationError("There is no open share link \(id): `gpslog share list` shows them.")
            }
            print("Revoked share link \(id).")
        }
    }
}
