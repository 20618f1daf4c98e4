// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// Devices of users (`gpslog user`), each with a token for `gpslog serve`.
    struct DeviceCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "device",
            abstract: "Add, list and revoke the devices that send to `gpslog serve`, each with its own token.",
            discussion: """
                Once a device exists, serve takes only tokens: a device's, which writes only as that device \
                (OwnTracks owntracks/USER/DEVICE; Overland device_id DEVICE or USER/DEVICE), or --token's, which \
                writes as any. A payload that names another device is refused. Tokens are kept only as SHA-256 hashes.
                """,
            subcommands: [DeviceAdd.self, DeviceList.self, DeviceRevoke.self],
            defaultSubcommand: DeviceList.self)
    }
}
