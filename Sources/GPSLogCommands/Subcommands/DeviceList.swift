// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// `gpslog device list`.
    struct DeviceList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the devices (all, or one user's): created, last used, revoked.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Only this user's devices.") var user: String?

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let devices = try store.devices(user: user)
            guard !devices.isEmpty else {
                print("No devices (gpslog device add USER/DEVICE).")
                return
            }
            let width = max(6, devices.map(\.fullName.count).max() ?? 0)
            let pad = { (text: String, n: Int) in
                text.padding(toLength: max(n, text.count), withPad: " ", startingAt: 0)
            }
            print(pad("DEVICE", width) + "  " + pad("CREATED", 24) + "  " + pad("LAST USED", 24) + "  REVOKED")
            for d in devices {
                print(
                    pad(d.fullName.visible, width) + "  " + pad(d.created.iso8601(), 24) + "  "
                        + pad(d.lastUsed?.iso8601() ?? "never", 24) + "  " + (d.revoked?.iso8601() ?? "-"))
            }
        }
    }
}
