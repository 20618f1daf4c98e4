// SPDX-License-Identifier: MIT

/// What the settings are read from, apart from the command line itself.
public struct ConfigSources: Sendable {
    /// `/etc/gpslog/config.toml`, when there is one.
    public var system: ConfigDocument?
    /// The user's file (or `--config`'s), when there is one.
    public var user: ConfigDocument?
    /// The process's environment; only gpslog's own variables are read.
    public var environment: [String: String]
    /// `--profile NAME` from the command line.
    public var profileFlag: String?

    /// Sources from their parts: by default no files, an empty environment and no `--profile`.
    public init(
        system: ConfigDocument? = nil, user: ConfigDocument? = nil, environment: [String: String] = [:],
        profileFlag: String? = nil
    ) {
        self.system = system
        self.user = user
        self.environment = environment
        self.profileFlag = profileFlag
    }
}

/// One option's value for a subcommand and where it came from.
public struct EffectiveSetting: Sendable, Equatable {
    /// The option's long name.
    public var key: String
    /// Its value, from the layer that won.
    public var value: ConfigValue
    /// Where the value came from, as `config show` prints it.
    public var origin: ConfigOrigin
}

/// Merges the layers for one subcommand: flag > `--profile` > environment > user file > system file > default. A
/// `profile =` in a file expands at that file's layer, below its own keys; `[SUBCOMMAND]` keys win over top-level
/// ones in the same layer.
public struct ConfigResolver: Sendable {
    /// The options of every configurable subcommand: a setting reaches a subcommand only if it has the option.
    public let catalog: OptionCatalog
    /// The files, environment and `--profile` the settings are read from.
    public let sources: ConfigSources

    /// gpslog's own variables and the keys they stand for (the program reads them itself, so a file's value for
    /// these keys must not be given as an argument when the variable is set).
    public static let environmentKeys: [(variable: String, key: String)] = [
        ("GPSLOG_DB", "db"), ("GPSLOG_TOKEN", "token"),
    ]
    /// The variable that chooses a profile.
    public static let profileVariable = "GPSLOG_PROFILE"

    /// The resolver of `sources` for the options in `catalog`.
    public init(catalog: OptionCatalog, sources: ConfigSources) {
        self.catalog = catalog
        self.sources = sources
    }

    /// Every profile by name: the built-ins, replaced by the system file's, replaced by the user's.
    public var profiles: [String: Profile] {
        var all = BuiltInProfiles.all
        for document in [sources.system, sources.user].compactMap({ $0 }) {
            all.merge(document.profiles) { $1 }
        }
        return all
    }

    /// Built-in profiles that a file redefines (`config show` says so).
    public var replacedBuiltIns: [String] {
        BuiltInProfiles.all.keys.filter { name in
            [sources.system, sources.user].contains { $0?.profiles[name] != nil }
        }.sorted()
    }

    /// Where the profile choice was made; the layers above it in the merge order.
    enum ChoiceLevel { case system, user, environment, flag }

    /// The chosen profile (`--profile`, then `$GPSLOG_PROFILE`, then the user's file, then the system's).
    func activeProfile() throws(ConfigError) -> (Profile, ChoiceLevel)? {
        let choices: [(String?, ChoiceLevel, String)] = [
            (sources.profileFlag, .flag, "--profile"),
            (sources.environment[Self.profileVariable], .environment, "$" + Self.profileVariable),
            (sources.user?.profileChoice?.value.argument, .user, choiceOrigin(sources.user)),
            (sources.system?.profileChoice?.value.argument, .system, choiceOrigin(sources.system)),
        ]
        guard let (name, level, origin) = choices.first(where: { $0.0 != nil }), let name else { return nil }
        guard let profile = profiles[name] else {
            throw .unknownProfile(name: name, origin: origin, known: profiles.keys.sorted())
        }
        return (profile, level)
    }

    /// The chosen profile's name and what chose it (`--profile`, `$GPSLOG_PROFILE`, `profile = in FILE:LINE`).
    public func chosenProfile() throws(ConfigError) -> (name: String, chosenBy: String)? {
        guard let (profile, level) = try activeProfile() else { return nil }
        let chosenBy =
            switch level {
            case .flag: "--profile"
            case .environment: "$" + Self.profileVariable
            case .user: choiceOrigin(sources.user)
            case .system: choiceOrigin(sources.system)
            }
        return (profile.name, chosenBy)
    }

    private func choiceOrigin(_ document: ConfigDocument?) -> String {
        guard let document else { return "" }
        return (document.profileChoice?.key ?? "profile") + " = in "
            + FileLocation(path: document.path, line: document.profileChoice?.line).description
    }

    /// The values the layers below the command line give `command`'s options, by key.
    public func settings(for command: String) throws(ConfigError) -> [String: EffectiveSetting] {
        try merge(for: command).settings
    }

    /// The values of lower layers that a profile took away (a built-in's "none"), by key: `record` says so, so
    /// that a file's setting never goes unused in silence.
    public func cleared(for command: String) throws(ConfigError) -> [ClearedSetting] {
        let merged = try merge(for: command)
        return merged.cleared.values.filter { merged.settings[$0.setting.key] == nil }.sorted {
            $0.setting.key < $1.setting.key
        }
    }

    /// The layers merged, and what a profile cleared on the way.
    private struct Merge {
        var settings: [String: EffectiveSetting] = [:]
        var cleared: [String: ClearedSetting] = [:]
    }

    private func merge(for command: String) throws(ConfigError) -> Merge {
        let active = try activeProfile()
        var merged = Merge()
        for (document, level) in [(sources.system, ChoiceLevel.system), (sources.user, .user)] {
            if let (profile, at) = active, at == level { apply(profile, command: command, into: &merged) }
            guard let document else { continue }
            apply(document.settings, command: command, builtIn: false, into: &merged) { line in
                .file(path: document.path, line: line, profile: nil)
            }
        }
        for (variable, key) in Self.environmentKeys {
            guard let value = sources.environment[variable], catalog.spec(key, in: command) != nil else { continue }
            set(EffectiveSetting(key: key, value: .string(value), origin: .environment(variable)), into: &merged)
        }
        if let (profile, at) = active, at == .environment || at == .flag {
            apply(profile, command: command, into: &merged)
        }
        return merged
    }

    private func apply(_ profile: Profile, command: String, into merged: inout Merge) {
        apply(profile.settings, command: command, builtIn: profile.path == nil, into: &merged) { line in
            profile.path.map { .file(path: $0, line: line, profile: profile.name) } ?? .builtInProfile(profile.name)
        }
    }

    /// Applies the common keys, then `command`'s section. A built-in's key for an option `command` lacks is skipped;
    /// a file's was refused when the file was read.
    private func apply(
        _ settings: ConfigSettings, command: String, builtIn: Bool, into merged: inout Merge,
        origin: (Int?) -> ConfigOrigin
    ) {
        for entry in settings.common + settings.sections[command, default: []] {
            guard let spec = catalog.spec(entry.key, in: command),
                entry.value == .unset || DocumentReader.mismatch(entry.value, spec) == nil
            else { continue }
            let value = resolved(entry.value, spec)
            set(EffectiveSetting(key: entry.key, value: value, origin: origin(entry.line)), into: &merged)
        }
    }

    /// `value` as the option takes it: a path's `~` is `$HOME` (no shell reads a config file).
    private func resolved(_ value: ConfigValue, _ spec: OptionSpec) -> ConfigValue {
        guard spec.valueType == .path else { return value }
        let home = sources.environment["HOME"]
        switch value {
        case .string(let path): return .string(HomePath.expand(path, home: home))
        case .array(let items): return .array(items.map { resolved($0, spec) })
        default: return value
        }
    }

    /// Sets one key, dropping what stands for it from the layers below; `.unset` only drops (and notes what it
    /// dropped).
    private func set(_ setting: EffectiveSetting, into merged: inout Merge) {
        for key in OptionCatalog.alternatives(of: setting.key) {
            if setting.value == .unset, let dropped = merged.settings[key] {
                merged.cleared[key] = ClearedSetting(setting: dropped, clearedBy: setting.origin)
            }
            merged.settings[key] = nil
        }
        if setting.value != .unset { merged.settings[setting.key] = setting }
    }
}

/// A lower layer's value that a profile's "none" took away.
public struct ClearedSetting: Sendable, Equatable {
    /// The value that is not used, and where it came from.
    public var setting: EffectiveSetting
    /// The profile that cleared it.
    public var clearedBy: ConfigOrigin

    /// What the user is told, without the value (it may be a secret): `profile battery-saving leaves min-distance
    /// unset: the value of /c/config.toml:3 is not used`.
    public var notice: String {
        "\(clearedBy) leaves \(setting.key) unset: the value of \(setting.origin) is not used"
    }
}
