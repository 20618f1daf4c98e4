// SPDX-License-Identifier: MIT
import Foundation

/// Where the config files are: the user's (`$XDG_CONFIG_HOME/gpslog/config.toml`, or `--config PATH`, or
/// `$GPSLOG_CONFIG`, which replace it) and the system's (`/etc/gpslog/config.toml`, for a service).
public struct ConfigLocations: Sendable, Equatable {
    /// The user's file.
    public var user: String
    /// Who chose the user's file when it is not the default (`--config`, `$GPSLOG_CONFIG`): it must exist then.
    public var userChosenBy: String?
    /// The system's file.
    public var system: String
    /// The user's gpslog config folder, whatever `--config` says: the home of `unique-id`.
    public var userDirectory: String

    /// The system file; `$GPSLOG_SYSTEM_CONFIG` replaces it in tests.
    public static let systemPath = "/etc/gpslog/config.toml"
    /// The environment variable that names the user's file in place of the default; `--config` wins over it.
    public static let configVariable = "GPSLOG_CONFIG"
    static let systemVariable = "GPSLOG_SYSTEM_CONFIG"

    /// The locations for `explicit` (`--config`) and `environment`.
    public init(explicit: String?, environment: [String: String]) {
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let home = environment["HOME"] ?? NSHomeDirectory()
        userDirectory = (xdg ?? home + "/.config") + "/gpslog"
        if let explicit {
            user = explicit
            userChosenBy = "--config"
        } else if let path = environment[Self.configVariable], !path.isEmpty {
            user = path
            userChosenBy = "$" + Self.configVariable
        } else {
            user = userDirectory + "/config.toml"
            userChosenBy = nil
        }
        system = environment[Self.systemVariable].flatMap { $0.isEmpty ? nil : $0 } ?? Self.systemPath
    }

    /// The folder of the user's file, where `config import` keeps the token.
    public var userFileDirectory: String { (user as NSString).deletingLastPathComponent }

    /// Reads both files (either may be absent, unless the user's was named explicitly).
    public func load(catalog: OptionCatalog) throws(ConfigError) -> (system: ConfigDocument?, user: ConfigDocument?) {
        let system = try ConfigDocument.load(path: system, catalog: catalog)
        let user = try ConfigDocument.load(path: user, catalog: catalog)
        if user == nil, let chosenBy = userChosenBy { throw .missing(path: self.user, origin: chosenBy) }
        return (system, user)
    }
}
