// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Why the configuration could not be used. Each names the file, the line and the key, and what to do.
public enum ConfigError: LocalizedError, Equatable {
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// `--config PATH` or `$GPSLOG_CONFIG` names a file that does not exist.
    case missing(path: String, origin: String)
    /// TOMLKit's parse error, at its line.
    case syntax(FileLocation, message: String)
    /// A key that names no option (of this section's subcommand, or of any subcommand at the top).
    case unknownKey(FileLocation, key: String, table: String?, suggestion: String?)
    /// A `[table]` that is no subcommand, nor `profile`.
    case unknownTable(FileLocation, name: String, suggestion: String?)
    /// A value of the wrong kind for its option, or one the option refused.
    case badValue(origin: ConfigOrigin, key: String, message: String)
    /// A key that a file cannot set.
    case notConfigurable(FileLocation, key: String)
    /// `--profile`, `$GPSLOG_PROFILE` or `profile =` names no profile.
    case unknownProfile(name: String, origin: String, known: [String])
    /// The command refused the settings together, naming none of them: each as `FILE:LINE: key`.
    case refusedSettings(message: String, settings: [String])
    /// gpslog could not read its own option table from the command-line parser's description of it.
    case optionTable(reason: String)

    /// What is wrong, where (`FILE:LINE`, the key or table) and what to do, for people.
    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read the config file \(path.visible): \(reason.visible)"
        case .missing(let path, let origin):
            return "\(origin) names \(path.visible), which does not exist: create it, or point \(origin) elsewhere."
        case .syntax(let location, let message):
            return "\(location): \(message.visible): this is not valid TOML (see https://toml.io)."
        case .unknownKey(let location, let key, let table, let suggestion):
            let place = table.map { " in [\($0.visible)]" } ?? ""
            let hint = suggestion.map { "did you mean '\($0)'? " } ?? ""
            let scope = table.map { "`gpslog \($0.visible) --help`" } ?? "`gpslog SUBCOMMAND --help`"
            return
                "\(location): unknown key '\(key.visible)'\(place): \(hint)Keys are the long option names of \(scope); fix or remove it."
        case .unknownTable(let location, let name, let suggestion):
            let hint = suggestion.map { "did you mean [\($0)]? " } ?? ""
            return
                "\(location): unknown table [\(name.visible)]: \(hint)Tables are subcommands ([record], [upload], ...) and [profile.NAME]."
        case .badValue(let origin, let key, let message):
            return
                "\(origin): \(key.visible): \(message.visible) (fix it there, or give --\(key.visible) on the command line)"
        case .notConfigurable(let location, let key) where key == OptionCatalog.profileKey:
            return
                "\(location): a profile is chosen at the top of the file (profile = \"NAME\"), not in a table: move it there."
        case .notConfigurable(let location, let key):
            return
                "\(location): '\(key.visible)' cannot be set in a config file: give --\(key.visible) on the command line."
        case .refusedSettings(let message, let settings):
            return
                "\(message.visible) (with these settings: \(settings.map(\.visible).joined(separator: "; ")); fix them there, or give the options on the command line)"
        case .optionTable(let reason):
            return
                "gpslog could not read its own option table (\(reason.visible)), so it cannot check the config files: this is a bug: report it, and move the config files aside to run without them."
        case .unknownProfile(let name, let origin, let known):
            return
                "\(origin) names the profile '\(name.visible)', which does not exist: use one of \(known.map(\.visible).joined(separator: ", ")), or define [profile.\(name.visible)] in the config file."
        }
    }
}
