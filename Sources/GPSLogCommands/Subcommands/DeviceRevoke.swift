// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// `gpslog device revoke`.
    struct DeviceRevoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Refuse a device's token from now on (a running serve too, from its next request).",
            discussion: "The device's sessions stay, and its name stays taken.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The device, as USER/DEVICE.", valueName: "user/device")) var device: String

        func run() throws {
            let (user, name) = try AccountName.device(device)
            let store = try global.openStore()
            defer { store.close() }
            let revoked = try store.revokeDevice(
                user: user, device: name, at: Timestamp(seconds: Date().timeIntervalSince1970))
            print(revoked ? "Revoked \(user)/\(name): its token is refused." : "\(user)/\(name) was revoked already.")
        }
    }
}
