// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel

/// The settings the config files and profiles give a run's subcommand: read, checked and resolved against the option
/// table (`OptionCatalog.gpslog()`), less those whose option the command line gives. The command is parsed from the
/// real command line alone; these are then set on its options in their own types (see `Configurable`), and its
/// checks run after that, so a config value and a flag are held to the very same rules.
struct ConfiguredSettings {
    var settings = ResolvedSettings()

    /// Spellings that ask for help or the version: those runs read no config file.
    static let informational: Set<String> = [
        "-h", "--help", "-help", "--version", "--experimental-dump-help", "--generate-completion-script",
    ]

    /// The settings for `arguments` (the global options already moved after the subcommand's name).
    init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigError)
    {
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
        settings = ResolvedSettings(try resolver.applied(for: command, commandLine: own))
        settings.shortNames = catalog.commands[command, default: [:]].mapValues(\.shortNames)
        // A profile's "none" over a file's value is said, not done in silence (unless the command line decides).
        let given = ArgumentScan.given(own, options: catalog.commands[command, default: [:]])
        for cleared in try resolver.cleared(for: command) where given[cleared.setting.key] == nil {
            FileHandle.standardError.write(Data("note: \(cleared.notice.visible).\n".utf8))
        }
    }

    /// The command `arguments` ask for, with the settings applied and every check passed. The command line is
    /// parsed alone (its checks wait); a check that fails with the settings but not without them blames them.
    func command(_ arguments: [String]) throws -> any ParsableCommand {
        let parsed = try OptionChecks.$deferred.withValue(true) { try GPSLog.parseAsRoot(arguments) }
        var command = parsed
        if !settings.isEmpty, var configurable = parsed as? any Configurable {
            try configurable.apply(settings)
            command = configurable as? any ParsableCommand ?? parsed
        }
        do {
            try command.validateAll()
        } catch {
            var alone = parsed
            let aloneError: (any Error)?
            do {
                try alone.validateAll()
                aloneError = nil
            } catch {
                aloneError = error
            }
            if let blamed = settings.blame(error, commandLineError: aloneError) { throw blamed }
            // The command line's own mistake. When the command line alone makes it too, the parser says it, with the
            // subcommand's usage; else (a setting completed the command line, which is wrong elsewhere) as it is.
            if let aloneError, GPSLog.message(for: aloneError) == GPSLog.message(for: error) {
                _ = try GPSLog.parseAsRoot(arguments)
            }
            throw error
        }
        return command
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
            var options = Self.options(of: command)
            // A group with no options of its own (share, device, user, region, visit) takes those all its subcommands
            // have, the global `db`: so a file's `db` reaches `device add` as it reaches `serve`. Its subcommands' own
            // options are one-off acts (a link's expiry, a region's centre) given on the command line only.
            if options.isEmpty, let subcommands = command.subcommands, let first = subcommands.first {
                options = subcommands.dropFirst().map(Self.options(of:)).reduce(Self.options(of: first)) {
                    common, next in common.filter { next[$0.key] != nil }
                }
            }
            commands[command.commandName] = options
        }
        guard Set(commands.keys) == GPSLog.configurableCommands else {
            let missing = GPSLog.configurableCommands.subtracting(commands.keys).sorted()
            throw .optionTable(reason: "no options for \(missing.joined(separator: ", "))")
        }
        self.init(commands: commands)
    }

    /// A command's options, by key, as its description lists them.
    private static func options(of command: ToolInfo.Command) -> [String: OptionSpec] {
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
        return options
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
