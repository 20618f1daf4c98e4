// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig

/// The command line with the config files' and profiles' settings added: the subcommand's name, then one argument
/// per setting whose option the command line does not give, then the command line's own arguments. Every option of
/// every subcommand is so configurable with no change to the commands (see `OptionCatalog.gpslog`).
struct ConfiguredArguments {
    var arguments: [String]
    var injection = ConfigInjection(items: [])

    /// Spellings that ask for help or the version: those runs read no config file.
    static let informational: Set<String> = [
        "-h", "--help", "-help", "--version", "--experimental-dump-help", "--generate-completion-script",
    ]

    /// `arguments` (the global options already moved after the subcommand's name) with the settings added.
    init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigError)
    {
        self.arguments = arguments
        guard let command = arguments.first, OptionCatalog.configurableCommands.contains(command),
            !arguments.prefix(while: { $0 != "--" }).contains(where: Self.informational.contains)
        else { return }
        let own = Array(arguments.dropFirst())
        let global = ArgumentScan.given(own, options: OptionCatalog.globalOptions)
        let locations = ConfigLocations(explicit: global["config"]?.last, environment: environment)
        let profile = global["profile"]?.last
        // Most runs have no file and no profile: they need not build the option list.
        guard
            FileManager.default.fileExists(atPath: locations.user) || locations.userChosenBy != nil
                || FileManager.default.fileExists(atPath: locations.system) || profile != nil
                || environment[ConfigResolver.profileVariable] != nil
        else { return }
        let catalog = OptionCatalog.gpslog
        let (system, user) = try locations.load(catalog: catalog)
        let resolver = ConfigResolver(
            catalog: catalog,
            sources: ConfigSources(system: system, user: user, environment: environment, profileFlag: profile))
        injection = try resolver.injection(for: command, commandLine: own)
        self.arguments = [command] + injection.arguments + own
    }

    /// The setting to blame when parsing the arguments failed with `error`: the one whose option the parser's
    /// message names, else the one without which the arguments parse. Nil when the command line itself is wrong.
    func blame(_ error: any Error) -> ConfigError? {
        guard !injection.items.isEmpty, GPSLog.exitCode(for: error) != .success else { return nil }
        let message = String(GPSLog.message(for: error).split(separator: "\n").first ?? "")
        for item in injection.items.sorted(by: { $0.setting.key.count > $1.setting.key.count })
        where Self.names(message, "--" + item.setting.key) {
            return .badValue(origin: item.setting.origin, key: item.setting.key, message: message)
        }
        for item in injection.items {
            let without = injection.items.filter { $0.setting.key != item.setting.key }.flatMap { $0.arguments }
            if (try? GPSLog.parseAsRoot([arguments[0]] + without + arguments.dropFirst(1 + injection.arguments.count)))
                != nil
            {
                return .badValue(origin: item.setting.origin, key: item.setting.key, message: message)
            }
        }
        return nil
    }

    /// Whether `message` holds `option` as a whole word (`--min-distance`, not `--min-distance-x`).
    private static func names(_ message: String, _ option: String) -> Bool {
        var rest = message[...]
        while let range = rest.range(of: option) {
            let next = rest[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-") }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }
}

extension OptionCatalog {
    /// The subcommands a config file configures: all but `config` itself (and `help`).
    static var configurableCommands: Set<String> {
        Set(GPSLog.configuration.subcommands.map { $0._commandName }).subtracting(["config", "help"])
    }

    /// The global options the config layer reads before parsing.
    static let globalOptions: [String: OptionSpec] = [
        "config": OptionSpec(name: "config", kind: .option), "profile": OptionSpec(name: "profile", kind: .option),
        "db": OptionSpec(name: "db", kind: .option),
    ]

    /// Options no file sets: help and version are not settings.
    private static let skipped: Set<String> = [
        "help", "version", "experimental-dump-help", "generate-completion-script",
    ]

    /// Every configurable subcommand's options, from swift-argument-parser's own description of the tool
    /// (`_dumpHelp()`, the JSON that `--experimental-dump-help` prints), so there is no second list to keep.
    static let gpslog: OptionCatalog = {
        guard let info = try? JSONDecoder().decode(ToolInfo.self, from: Data(GPSLog._dumpHelp().utf8)) else {
            return OptionCatalog(commands: [:])
        }
        var commands: [String: [String: OptionSpec]] = [:]
        for command in info.command.subcommands ?? [] where configurableCommands.contains(command.commandName) {
            var options: [String: OptionSpec] = [:]
            for argument in command.arguments ?? [] where argument.kind != "positional" {
                let long = (argument.names ?? []).filter { $0.kind == "long" }.map(\.name)
                let shorts = (argument.names ?? []).filter { $0.kind == "short" }.map(\.name)
                guard let name = long.first(where: { !$0.hasPrefix("no-") }) ?? long.first, !skipped.contains(name)
                else { continue }
                options[name] = OptionSpec(
                    name: name, kind: argument.kind == "flag" ? .flag : .option, isRepeating: argument.isRepeating,
                    inversion: long.first { $0 == "no-" + name }, shortNames: shorts,
                    defaultValue: argument.defaultValue)
            }
            commands[command.commandName] = options
        }
        return OptionCatalog(commands: commands)
    }()
}

/// The part of swift-argument-parser's ToolInfoV0 JSON the catalog reads.
private struct ToolInfo: Decodable {
    struct Name: Decodable {
        var kind: String
        var name: String
    }
    struct Argument: Decodable {
        var kind: String
        var isRepeating: Bool
        var names: [Name]?
        var defaultValue: String?
    }
    struct Command: Decodable {
        var commandName: String
        var subcommands: [Command]?
        var arguments: [Argument]?
    }
    var command: Command
}
