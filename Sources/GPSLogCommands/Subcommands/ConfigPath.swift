// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel

extension GPSLog.Config {
    /// Prints where the config files are and whether each exists.
    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the user's and the system's config file, and whether each exists.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let locations = ConfigLocations(explicit: global.config, environment: ProcessInfo.processInfo.environment)
            for (role, path) in [("user", locations.user), ("system", locations.system)] {
                let state = FileManager.default.fileExists(atPath: path) ? "exists" : "does not exist"
                print("\(role): \(path.visible) (\(state))")
            }
        }
    }
}
