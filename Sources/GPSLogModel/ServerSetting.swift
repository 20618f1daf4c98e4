// SPDX-License-Identifier: MIT

/// One setting a server sent in an Overland answer's `set` (remote configuration), as text: `send_interval` and
/// `trip_mode` in section `top`, the others under `main` or `trip`. Numbers and booleans keep their JSON spelling
/// (`200`, `true`).
public struct ServerSetting: Sendable, Codable, Equatable, Hashable {
    /// `top`, `main` or `trip`.
    public var section: String
    /// The setting's name within its section (e.g. `send_interval`).
    public var name: String
    /// The value in its JSON spelling (`200`, `true`), strings without quotes.
    public var value: String

    /// Creates a setting from its parts.
    public init(section: String, name: String, value: String) {
        self.section = section
        self.name = name
        self.value = value
    }

    /// The key as a log shows it: `send_interval`, `main.min_distance`.
    public var path: String { section == "top" ? name : section + "." + name }
}
