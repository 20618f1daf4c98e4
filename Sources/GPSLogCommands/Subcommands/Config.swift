// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogUpload

extension GPSLog {
    /// The config files and profiles: what they set, where they are, and Overland's setup links.
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the settings from the config files and profiles, and import Overland setup links.",
            discussion: """
                Settings come from $XDG_CONFIG_HOME/gpslog/config.toml (~/.config/gpslog/config.toml; --config PATH \
                or $GPSLOG_CONFIG instead) and /etc/gpslog/config.toml. Keys are the long option names \
                (min-distance = 50, send-interval = "30s"); top-level keys apply to every subcommand that has the \
                option, [record], [upload], ... to one subcommand, [profile.NAME] to a profile; a profile sets only \
                the keys it names. A path may start with ~/ (the home folder). A flag wins over \
                $GPSLOG_DB, $GPSLOG_TOKEN and --profile's settings, which win over the user's file, then the \
                system's, then the default. Built-in profiles: high-resolution, battery-saving.
                """,
            subcommands: [Show.self, Path.self, Import.self])

        /// The files and the merge of their layers, for `global`'s `--config` and `--profile`.
        static func resolver(_ global: GlobalOptions) throws -> (ConfigLocations, ConfigResolver) {
            let environment = ProcessInfo.processInfo.environment
            let locations = ConfigLocations(explicit: global.config, environment: environment)
            let catalog = try OptionCatalog.gpslog()
            let (system, user) = try locations.load(catalog: catalog)
            let sources = ConfigSources(
                system: system, user: user, environment: environment, profileFlag: global.profile)
            return (locations, ConfigResolver(catalog: catalog, sources: sources))
        }

        /// A value as it may be shown: tokens as `***`, URLs (a server's, a broker's) without their secrets.
        static func shown(_ key: String, _ value: ConfigValue) -> ConfigValue {
            guard case .string(let text) = value else { return key == "token" ? .string("***") : value }
            return .string(shown(key, text))
        }

        /// Text of `key` as it may be shown (see `shown(_:_:)`); surrounding quotes and spaces are dropped from a URL.
        static func shown(_ key: String, _ text: String) -> String {
            switch key {
            case "token": "***"
            case "send", "url", "mqtt":
                Destination.redact(text.trimmingCharacters(in: CharacterSet(charactersIn: "\"' ")))
            default: text
            }
        }
    }
}
