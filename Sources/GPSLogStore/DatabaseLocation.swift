// SPDX-License-Identifier: MIT
import Foundation

/// Where the database file lives: `--db PATH`, else `GPSLOG_DB`, else `$XDG_DATA_HOME/gpslog/gpslog.sqlite`
/// (`~/.local/share/gpslog/gpslog.sqlite` when XDG_DATA_HOME is unset or empty).
public enum DatabaseLocation {
    /// Resolves the database path.
    /// - Parameters:
    ///   - explicit: the `--db` option, when given.
    ///   - environment: the process environment.
    /// - Returns: the path, with a leading `~` expanded to `HOME`; it may not exist yet.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        if let explicit, !explicit.isEmpty { return expand(explicit, environment) }
        if let path = environment["GPSLOG_DB"], !path.isEmpty { return expand(path, environment) }
        // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return xdg + "/gpslog/gpslog.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/gpslog/gpslog.sqlite"
    }

    private static func expand(_ path: String, _ environment: [String: String]) -> String {
        if path == "~" || path.hasPrefix("~/"), let home = environment["HOME"] {
            return home + path.dropFirst()
        }
        return path
    }
}
