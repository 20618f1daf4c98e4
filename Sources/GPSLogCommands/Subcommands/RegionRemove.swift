// SPDX-License-Identifier: MIT
import ArgumentParser

extension GPSLog {
    /// `gpslog region remove`.
    struct RegionRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a region (its past transitions stay).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The region's name.") var name: String

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            guard try store.removeRegion(named: name) else {
                throw CommandError.noRegion(name)
            }
            print("Removed region '\(name.visible)'.")
        }
    }
}
