// SPDX-License-Identifier: MIT

/// `~` in a path, as a shell expands it: a config file's paths are not read by a shell.
public enum HomePath {
    /// `path` with a leading `~` or `~/` replaced by `home`; any other path (`~user/...` too) as it is.
    public static func expand(_ path: String, home: String?) -> String {
        guard let home, !home.isEmpty, path == "~" || path.hasPrefix("~/") else { return path }
        let base = home.hasSuffix("/") && home.count > 1 ? String(home.dropLast()) : home
        return base + path.dropFirst()
    }
}
