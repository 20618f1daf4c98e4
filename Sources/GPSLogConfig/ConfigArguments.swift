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

extension ConfigResolver {
    /// The settings the files and profiles give `command` whose options its `commandLine` (its own arguments, after
    /// its name) does not give, nor an alternative of them: the command applies these to its parsed options, in
    /// their own types. Settings from the environment are left to the program, which reads its variables itself.
    public func applied(for command: String, commandLine: [String]) throws(ConfigError) -> [EffectiveSetting] {
        let options = catalog.commands[command, default: [:]]
        let given = Set(ArgumentScan.given(commandLine, options: options).keys)
        return try settings(for: command).values.filter { setting in
            !setting.origin.isEnvironment && options[setting.key] != nil
                && OptionCatalog.alternatives(of: setting.key).isDisjoint(with: given)
        }.sorted { $0.key < $1.key }
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
