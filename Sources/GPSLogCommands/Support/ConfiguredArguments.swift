// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel

/// The command line with the config files' and profiles' settings added: the subcommand's name, then one argument
/// per setting whose option the command line does not give, then the command line's own arguments. The settings
/// were read, checked and resolved against the option table first (`OptionCatalog.gpslog()`); the command's own
/// parser then reads each value into its option's type and runs its checks, so a config value and a flag are held
/// to the very same rules.
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
        guard let command = arguments.first, GPSLog.configurableCommands.contains(command),
            !arguments.prefix(while: { $0 != "--" }).contains(where: Self.informational.contains)
        else { return }
        let own = Array(arguments.dropFirst())
        let global = ArgumentScan.given(own, options: OptionCatalog.globalOptions)
        let locations = ConfigLocations(explicit: global["config"]?.last, environment: environment)
        let profile = global["profile"]?.last
        // Most runs have no file and no profile: they need not build the option table.
        guard
            FileManager.default.fileExists(atPath: locations.user) || locations.userChosenBy != nil
                || FileManager.default.fileExists(atPath: locations.system) || profile != nil
                || environment[ConfigResolver.profileVariable] != nil
        else { return }
        let catalog = try OptionCatalog.gpslog()
        let (system, user) = try locations.load(catalog: catalog)
        let resolver = ConfigResolver(
            catalog: catalog,
            sources: ConfigSources(system: system, user: user, environment: environment, profileFlag: profile))
        injection = try resolver.injection(for: command, commandLine: own)
        self.arguments = [command] + injection.arguments + own
        // A profile's "none" over a file's value is said, not done in silence (unless the command line decides).
        let given = ArgumentScan.given(own, options: catalog.commands[command, default: [:]])
        for cleared in try resolver.cleared(for: command) where given[cleared.setting.key] == nil {
            FileHandle.standardError.write(Data("note: \(cleared.notice.visible).\n".utf8))
        }
    }

    /// The settings to blame when parsing the arguments failed with `error`: the one whose option the parser's
    /// message names; else, when the command line parses without them, all of them. Nil when the command line
    /// itself is wrong.
    func blame(_ error: any Error) -> ConfigError? {
        guard !injection.items.isEmpty, GPSLog.exitCode(for: error) != .success else { return nil }
        let message = String(GPSLog.message(for: error).split(separator: "\n").first ?? "")
        for item in injection.items.sorted(by: { $0.setting.key.count > $1.setting.key.count })
        where Self.names(message, "--" + item.setting.key) {
            return .badValue(origin: item.setting.origin, key: item.setting.key, message: message)
        }
        // One more parse, of the command line alone (not one per setting): if it is fine, the settings are not.
        let commandLine = [arguments[0]] + arguments.dropFirst(1 + injection.arguments.count)
        guard (try? GPSLog.parseAsRoot(commandLine)) != nil else { return nil }
        if let only = injection.items.first, injection.items.count == 1 {
            return .badValue(origin: only.setting.origin, key: only.setting.key, message: message)
        }
        return .refusedSettings(
            message: message, settings: injection.items.map { "\($0.setting.origin): \($0.setting.key)" })
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

extension GPSLog {
    /// Every subcommand's name and aliases, as the command line spells them.
    static var subcommandNames: Set<String> {
        Set(configuration.subcommands.flatMap { [commandName(of: $0)] + $0.configuration.aliases })
    }

    /// The subcommands a config file configures: all but `config` itself (and `help`).
    static var configurableCommands: Set<String> {
        Set(configuration.subcommands.map(commandName(of:))).subtracting(["config", "help"])
    }

    /// A subcommand's name: its configuration's, else its type's name in lowercase with hyphens (`SendNow` is
    /// `send-now`), the rule swift-argument-parser documents for `commandName`.
    static func commandName(of command: any ParsableCommand.Type) -> String {
        if let name = command.configuration.commandName { return name }
        var name = ""
        let letters = Array(String(describing: command))
        for (i, c) in letters.enumerated() {
            let startsWord =
                i > 0 && c.isUppercase
                && (letters[i - 1].isLowercase || (i + 1 < letters.count && letters[i + 1].isLowercase))
            if startsWord { name.append("-") }
            name += c.lowercased()
        }
        return name
    }
}

extension OptionCatalog {
    /// The global options the config layer reads before parsing.
    static let globalOptions: [String: OptionSpec] = [
        "config": OptionSpec(name: "config", kind: .option), "profile": OptionSpec(name: "profile", kind: .option),
        "db": OptionSpec(name: "db", kind: .option),
    ]

    /// Options no file sets: help and version are not settings.
    private static let skipped: Set<String> = [
        "help", "version", "experimental-dump-help", "generate-completion-script",
    ]

    /// Value names (`--token-file <path>`, `--output <output>`) of options whose value is a file.
    private static let pathValueNames: Set<String> = ["path", "file", "output"]

    private static let table: Result<OptionCatalog, ConfigError> = Result { () throws(ConfigError) in
        try OptionCatalog(toolInfo: Data(GPSLog.dumpedHelp().utf8))
    }

    /// The option table of every configurable subcommand: swift-argument-parser's own description of the tool (the
    /// JSON `gpslog --experimental-dump-help` prints), so there is no second list to keep in step. A description
    /// that cannot be read is an error, never an empty table.
    static func gpslog() throws(ConfigError) -> OptionCatalog { try table.get() }

    /// The table from `json`, the tool's description in swift-argument-parser's ToolInfo format (version 0).
    init(toolInfo json: Data) throws(ConfigError) {
        let info: ToolInfo
        do {
            info = try JSONDecoder().decode(ToolInfo.self, from: json)
        } catch {
            throw .optionTable(reason: "\(error)")
        }
        var commands: [String: [String: OptionSpec]] = [:]
        for command in info.command.subcommands ?? [] where GPSLog.configurableCommands.contains(command.commandName) {
            var options: [String: OptionSpec] = [:]
            for argument in command.arguments ?? [] where argument.kind != "positional" {
                let long = (argument.names ?? []).filter { $0.kind == "long" }.map(\.name)
                let shorts = (argument.names ?? []).filter { $0.kind == "short" }.map(\.name)
                guard let name = long.first(where: { !$0.hasPrefix("no-") }) ?? long.first, !Self.skipped.contains(name)
                else { continue }
                options[name] = OptionSpec(
                    name: name, kind: argument.kind == "flag" ? .flag : .option, isRepeating: argument.isRepeating,
                    inversion: long.first { $0 == "no-" + name }, shortNames: shorts,
                    defaultValue: argument.defaultValue,
                    valueType: Self.pathValueNames.contains(argument.valueName ?? "") ? .path : .text)
            }
            commands[command.commandName] = options
        }
        guard Set(commands.keys) == GPSLog.configurableCommands else {
            let missing = GPSLog.configurableCommands.subtracting(commands.keys).sorted()
            throw .optionTable(reason: "no options for \(missing.joined(separator: ", "))")
        }
        self.init(commands: commands)
    }
}

extension GPSLog {
    /// The tool's description as `--experimental-dump-help` prints it, through the parser's public entry points:
    /// that request ends the parse with an "error" whose full message is the description.
    static func dumpedHelp() -> String {
        do {
            _ = try parseAsRoot(["--experimental-dump-help"])
            return ""
        } catch {
            return fullMessage(for: error)
        }
    }
}

/// The part of swift-argument-parser's ToolInfoV0 JSON the table reads.
private struct ToolInfo: Decodable {
    struct Name: Decodable {
        var kind: String
        var name: String
    }
    struct Argument: Decodable {
        var kind: String
        var isRepeating: Bool
        var names: [Name]?
        var valueName: String?
        var defaultValue: String?
    }
    struct Command: Decodable {
        var commandName: String
        var subcommands: [Command]?
        var arguments: [Argument]?
    }
    var command: Command
}
