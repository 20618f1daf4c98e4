// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel

extension GPSLog {
    /// `gpslog share list`.
    struct ShareList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the share links (never their tokens): session, expiry, revoked.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let shares = try store.shares()
            guard !shares.isEmpty else {
                print("No share links (gpslog share SESSION).")
                return
            }
            let now = Timestamp(seconds: Date().timeIntervalSince1970)
            print("ID  SESSION  EXPIRES  STATE")
            for s in shares {
                let state = s.revoked != nil ? "revoked" : (s.expires <= now ? "expired" : "open")
                print("\(s.id)  \(s.sessionName.visible) (\(s.sessionID.prefix(8)))  \(s.expires.iso8601())  \(state)")
            }
        }
    }
}
