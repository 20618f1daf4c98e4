// SPDX-License-Identifier: MIT

/// The options a subcommand's own arguments give, read with the same rules as the parser: `--name VALUE`,
/// `--name=VALUE`, `-n VALUE`, flags alone, and nothing after `--`.
public enum ArgumentScan {
    /// Key -> the values given for it (a flag gives "true", or "false" for its `no-` spelling), in order.
    public static func given(_ arguments: some Sequence<String>, options: [String: OptionSpec]) -> [String: [String]] {
        var byName: [String: (OptionSpec, Bool)] = [:]  // spelling -> option, and whether it is the inverted one
        for spec in options.values {
            byName["--" + spec.name] = (spec, false)
            if let inversion = spec.inversion { byName["--" + inversion] = (spec, true) }
            for short in spec.shortNames { byName["-" + short] = (spec, false) }
        }
        var found: [String: [String]] = [:]
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--" { break }
            let (name, attached) = split(argument)
            guard let (spec, inverted) = byName[name] else { continue }
            switch spec.kind {
            case .flag: found[spec.name, default: []].append(inverted ? "false" : "true")
            case .option:
                if let value = attached ?? iterator.next() { found[spec.name, default: []].append(value) }
            }
        }
        return found
    }

    /// `--name=value` as its two parts; anything else as itself.
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

/// The arguments the config layer adds for one subcommand, each with the setting it came from.
public struct ConfigInjection: Sendable {
    /// One setting, as arguments (`--min-distance=50`; a repeated option once per value; a flag alone).
    public struct Item: Sendable {
        public var setting: EffectiveSetting
        public var arguments: [String]
    }

    public var items: [Item]

    public init(items: [Item] = []) {
        self.items = items
    }

    /// All the arguments, to put right after the subcommand's name.
    public var arguments: [String] { items.flatMap(\.arguments) }
}

extension ConfigResolver {
    /// The arguments to add to `command`'s `commandLine` (its own arguments, after its name): every setting from the
    /// files and profiles whose option the command line does not give. Settings from the environment are left to
    /// the program, which reads its variables itself.
    public func injection(for command: String, commandLine: [String]) throws(ConfigError) -> ConfigInjection {
        let options = catalog.commands[command, default: [:]]
        let given = Set(ArgumentScan.given(commandLine, options: options).keys)
        var items: [ConfigInjection.Item] = []
        for setting in try settings(for: command).values.sorted(by: { $0.key < $1.key }) {
            guard !setting.origin.isEnvironment, let spec = options[setting.key],
                OptionCatalog.alternatives(of: setting.key).isDisjoint(with: given)
            else { continue }
            let arguments = Self.arguments(setting.value, spec)
            if !arguments.isEmpty { items.append(.init(setting: setting, arguments: arguments)) }
        }
        return ConfigInjection(items: items)
    }

    /// `value` as arguments of `spec`.
    static func arguments(_ value: ConfigValue, _ spec: OptionSpec) -> [String] {
        switch (spec.kind, value) {
        case (.flag, .boolean(true)): return ["--" + spec.name]
        case (.flag, .boolean(false)): return spec.inversion.map { ["--" + $0] } ?? []
        case (.flag, _): return []
        case (.option, .array(let items)): return items.compactMap(\.argument).map { "--\(spec.name)=\($0)" }
        case (.option, _): return value.argument.map { ["--\(spec.name)=\($0)"] } ?? []
        }
    }

    /// Every option of `command` with its value and origin, as `config show` prints them: the command line's
    /// (`commandLine`), else the layers', else the default. Options with no value at all are left out.
    public func effective(for command: String, commandLine: [String] = []) throws(ConfigError) -> [EffectiveSetting] {
        let options = catalog.commands[command, default: [:]]
        let given = ArgumentScan.given(commandLine, options: options)
        let layered = try settings(for: command)
        var shown: [EffectiveSetting] = []
        for (key, spec) in options.sorted(by: { $0.key < $1.key }) {
            let alternatives = OptionCatalog.alternatives(of: key)
            if let values = given[key] {
                let value: ConfigValue =
                    spec.isRepeating
                    ? .array(values.map(ConfigValue.string))
                    : spec.kind == .flag ? .boolean(values.last == "true") : .string(values.last ?? "")
                shown.append(EffectiveSetting(key: key, value: value, origin: .flag))
            } else if !alternatives.subtracting([key]).isDisjoint(with: given.keys) {
                continue  // its alternative was given on the command line
            } else if let setting = layered[key] {
                shown.append(setting)
            } else if let text = spec.defaultValue, !text.isEmpty {
                shown.append(EffectiveSetting(key: key, value: .string(text), origin: .default))
            } else if spec.kind == .flag {
                shown.append(EffectiveSetting(key: key, value: .boolean(false), origin: .default))
            }
        }
        return shown
    }
}
