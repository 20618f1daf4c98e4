// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel

extension GPSLog.Config {
    /// Prints each effective setting and where it came from.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the effective settings and where each came from (tokens as ***).",
            discussion: """
                Without --for: what the files, the environment and the profile set, per subcommand. With --for \
                SUBCOMMAND: every option of that subcommand with its value and origin (flag, env, FILE:LINE, \
                profile NAME, default); the subcommand's own flags may follow --, to see how they combine.
                """)

        @OptionGroup var global: GlobalOptions
        @Option(
            name: .customLong("for"), help: ArgumentHelp("Every option of this subcommand.", valueName: "subcommand"))
        var subcommand: String?
        @Flag(help: "Print JSON.") var json = false
        @Argument(parsing: .postTerminator, help: "The subcommand's own arguments (after --).") var arguments:
            [String] =
                []

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if let subcommand, !GPSLog.configurableCommands.contains(subcommand) {
                throw ValidationError(
                    "--for must name a subcommand: \(GPSLog.configurableCommands.sorted().joined(separator: ", "))."
                )
            }
            if subcommand == nil && !arguments.isEmpty { throw ValidationError("Arguments after -- need --for.") }
        }

        func run() throws {
            let (locations, resolver) = try GPSLog.Config.resolver(global)
            var settings: [ShownSetting] = []
            for command in subcommand.map({ [$0] }) ?? resolver.catalog.commands.keys.sorted() {
                // The overview names the environment once, above, not in every subcommand.
                let effective =
                    subcommand == nil
                    ? try resolver.settings(for: command).values.filter { !$0.origin.isEnvironment }.sorted {
                        $0.key < $1.key
                    }
                    : try resolver.effective(for: command, commandLine: arguments)
                if subcommand != nil {
                    // As the command itself says it (on stderr: the settings above are what it uses).
                    let given = ArgumentScan.given(arguments, options: resolver.catalog.commands[command, default: [:]])
                    for cleared in try resolver.cleared(for: command) where given[cleared.setting.key] == nil {
                        FileHandle.standardError.write(Data("note: \(cleared.notice.visible).\n".utf8))
                    }
                }
                settings += effective.map {
                    ShownSetting(
                        subcommand: command, key: $0.key, value: GPSLog.Config.shown($0.key, $0.value),
                        origin: $0.origin.description)
                }
            }
            let profile = try resolver.chosenProfile()
            let files = [("user", locations.user), ("system", locations.system)].map {
                ShownFile(role: $0.0, path: $0.1, exists: FileManager.default.fileExists(atPath: $0.1))
            }
            if json {
                print(
                    try JSONOutput.render(
                        ShownConfig(
                            files: files, profile: profile.map { ShownProfile(name: $0.name, chosenBy: $0.chosenBy) },
                            settings: settings)))
                return
            }
            for file in files {
                print("# \(file.role) file: \(file.path.visible)\(file.exists ? "" : " (none)")")
            }
            for (variable, key) in ConfigResolver.environmentKeys {
                if let value = ProcessInfo.processInfo.environment[variable] {
                    print("# env \(variable) = \(GPSLog.Config.shown(key, .string(value)).display.visible)")
                }
            }
            if let profile { print("# profile: \(profile.name.visible), chosen by \(profile.chosenBy.visible)") }
            for name in resolver.replacedBuiltIns { print("# profile \(name): a config file's, not the built-in one") }
            if settings.isEmpty { print("# no settings: every option has its default") }
            var section: String?
            for s in settings {
                if s.subcommand != section {
                    print("\n[\(s.subcommand)]")
                    section = s.subcommand
                }
                print("\(s.key) = \(s.value.display)  # \(s.origin)".visible)
            }
        }
    }
}

/// `config show --json`.
private struct ShownConfig: Encodable {
    var files: [ShownFile]
    var profile: ShownProfile?
    var settings: [ShownSetting]
}

private struct ShownFile: Encodable {
    var role: String
    var path: String
    var exists: Bool
}

private struct ShownProfile: Encodable {
    var name: String
    var chosenBy: String
}

private struct ShownSetting: Encodable {
    var subcommand: String
    var key: String
    var value: ConfigValue
    var origin: String
}
