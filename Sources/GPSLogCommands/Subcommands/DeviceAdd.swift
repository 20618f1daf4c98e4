// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogReceiver
import GPSLogStore

extension GPSLog {
    /// `gpslog device add`.
    struct DeviceAdd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a device and print its new token, shown this once, alone on the last line.",
            discussion: """
                The user must exist (gpslog user add USER). The token goes in the app: OwnTracks' HTTP password \
                (user USER, device ID DEVICE), Overland's access token (Bearer; device_id DEVICE), or \
                `gpslog upload --token`. `gpslog device add alice/phone | tail -1` gives the token alone.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The device, as USER/DEVICE (e.g. alice/phone).", valueName: "user/device"))
        var device: String

        func run() throws {
            let (user, name) = try AccountName.device(device)
            let token = DeviceToken.make()
            let store = try global.openStore()
            defer { store.close() }
            try store.addDevice(
                user: user, device: name, tokenHash: DeviceToken.hash(token),
                at: Timestamp(seconds: Date().timeIntervalSince1970))
            print("Added device \(user)/\(name). Its token, shown only this once (the database keeps only its hash):")
            print(token)
        }
    }
}
