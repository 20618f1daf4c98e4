// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

@testable import GPSLogCommands
@testable import GPSLogConfig

/// Every key of the option table reaches its own option: for each configurable subcommand and each of its keys, a
/// setting of that key, applied to the parsed command (`Configurable.apply`), changes that option's value and no
/// other. An option added to a command without its line in `apply` fails here, not in silence at a user's.
@Suite(.ownThreads) struct ConfigReachTests {
    /// Values tried in turn, for options that take any word; the first the option takes and that changes it wins.
    static let words = [
        "7", "5", "2s", "0.5", "2d", "day", "u/d", "b.svg", "off", "2026-01-02T00:00:00Z", "Europe/Amsterdam",
        "4,52,5,53",
    ]
    /// Options whose key is not their property's name in kebab case.
    static let customNames = [
        "deprecatedFrom": "from", "outputFormatName": "output-format", "deprecatedTo": "to", "accept2xx": "accept-2xx",
    ]

    @Test func everyKeyReachesItsCommand() throws {
        let catalog = try OptionCatalog.gpslog()
        let choices = try Self.allValues()
        var checked = 0
        for (command, options) in catalog.commands.sorted(by: { $0.key < $1.key }) where !options.isEmpty {
            let parsed = try #require(Self.parse(command), "\(command) does not parse")
            // `config` and `profile` choose the files and the profile: no file sets them.
            for (key, spec) in options.sorted(by: { $0.key < $1.key })
            where !OptionCatalog.notConfigurable.contains(key) {
                var words: [ConfigValue] =
                    spec.kind == .flag
                    ? [.boolean(true), .boolean(false)]
                    : ((choices[command]?[key] ?? []) + Self.words).map(ConfigValue.string)
                if spec.isRepeating { words = words.map { .array([$0]) } }
                let changed = words.lazy.compactMap { Self.changes(parsed, key: key, value: $0) }.first { !$0.isEmpty }
                guard let labels = changed else {
                    Issue.record("\(command): a setting of \(key) changes no option")
                    continue
                }
                #expect(labels.map(Self.key(of:)) == [key], "\(command): \(key) changed \(labels)")
                checked += 1
            }
        }
        #expect(checked > 100, "\(checked) keys")
    }

    /// A refused value names the file, the line and the key, in the words the parser uses for a flag.
    @Test func aRefusedValueNamesItsOrigin() throws {
        let record = try #require(Self.parse("record"))
        let origin = ConfigOrigin.file(path: "/c/config.toml", line: 4, profile: nil)
        let far = Self.refusal(record, EffectiveSetting(key: "min-distance", value: .string("far"), origin: origin))
        #expect(
            far?.hasPrefix("/c/config.toml:4: min-distance: The value 'far' is invalid") == true, "\(far ?? "taken")")
        // An option with a list of values says them, as the parser does.
        let mode = Self.refusal(record, EffectiveSetting(key: "mode", value: .string("hovercraft"), origin: origin))
        #expect(
            mode?.contains("mode: The value 'hovercraft' is invalid for '--mode'. Please provide one of 'walk', ")
                == true
                && mode?.contains(" or 'scooter'.") == true, "\(mode ?? "taken")")
    }

    /// The message of the error `setting` gets from `command`; nil when it is taken.
    static func refusal(_ command: any Configurable, _ setting: EffectiveSetting) -> String? {
        var command = command
        do {
            try command.apply(ResolvedSettings([setting]))
            return nil
        } catch {
            // Typed throws: `error` is a ConfigError.
            return error.errorDescription ?? "\(error)"
        }
    }

    /// Every check (`validate()`) of a command or an option group waits while the command line alone is parsed, as
    /// `OptionChecks` says: one that ran then would refuse a command line that a config setting completes
    /// (`[plot] output = ...`), and would judge the defaults instead of the settings.
    @Test func everyCheckWaitsForTheSettings() throws {
        let folder = TestPaths.packageRoot + "/Sources/GPSLogCommands"
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        var checks = 0
        for file in files.sorted() {
            let lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).components(separatedBy: "\n")
            for (i, line) in lines.enumerated() where line.contains("func validate() throws {") {
                checks += 1
                let next = i + 1 < lines.count ? lines[i + 1].trimmingCharacters(in: .whitespaces) : ""
                #expect(
                    next.hasPrefix("guard !OptionChecks.deferred else { return }"),
                    "\(file):\(i + 1): validate() does not start with the OptionChecks.deferred guard")
            }
        }
        #expect(checks > 20, "\(checks) checks")
    }

    /// `command` parsed from its positional arguments alone, its checks waiting as they do in `main`: no option is
    /// required of the command line (`prune --older-than`, `plot -o`, `split --at` may come from a file).
    static func parse(_ command: String) -> (any Configurable)? {
        // A group (`device`) by its first subcommand that parses (`device add x`).
        let group = GPSLog.configuration.subcommands.first { GPSLog.commandName(of: $0) == command }
        let subcommands = group?.configuration.subcommands.map { [GPSLog.commandName(of: $0)] } ?? []
        for start in [[command]] + subcommands.map { [command] + $0 } {
            // `visit rename ID NAME` takes a number first.
            for line in [[], ["x"], ["x", "x"], ["1", "x"]] {
                let parsed = try? OptionChecks.$deferred.withValue(true) { try GPSLog.parseAsRoot(start + line) }
                if let parsed = parsed as? any Configurable { return parsed }
            }
        }
        return nil
    }

    /// The options (by property name) whose value changes when `key` is set to `value`; nil if the option refuses it.
    static func changes(_ parsed: any Configurable, key: String, value: ConfigValue) -> [String]? {
        var command = parsed
        let origin = ConfigOrigin.file(path: "/t/config.toml", line: 1, profile: nil)
        guard (try? command.apply(ResolvedSettings([EffectiveSetting(key: key, value: value, origin: origin)]))) != nil
        else { return nil }
        let before = Dictionary(values(parsed)) { a, _ in a }
        return values(command).filter { before[$0.0] != $0.1 }.map(\.0)
    }

    /// Every option's value as text, by property name (without the wrapper's underscore), through the option groups.
    static func values(_ value: Any) -> [(String, String)] {
        Mirror(reflecting: value).children.flatMap { child -> [(String, String)] in
            if let group = child.value as? any OptionGroupValue { return values(group.groupValue) }
            return [(String((child.label ?? "").drop { $0 == "_" }), "\(child.value)")]
        }
    }

    /// A property's key: its name in kebab case, as swift-argument-parser spells a long option.
    static func key(of property: String) -> String {
        if let custom = customNames[property] { return custom }
        let letters = Array(property)
        var key = ""
        for (i, c) in letters.enumerated() {
            let startsWord =
                i > 0 && c.isUppercase
                && (letters[i - 1].isLowercase || (i + 1 < letters.count && letters[i + 1].isLowercase))
            if startsWord { key.append("-") }
            key += c.lowercased()
        }
        return key
    }

    /// The values an option lists (`allValues` in the tool's description), by command and key.
    static func allValues() throws -> [String: [String: [String]]] {
        struct Tool: Decodable {
            struct Name: Decodable { var name: String }
            struct Argument: Decodable {
                var names: [Name]?
                var allValues: [String]?
            }
            struct Command: Decodable {
                var commandName: String
                var arguments: [Argument]?
                var subcommands: [Command]?
            }
            var command: Command
        }
        let tool = try JSONDecoder().decode(Tool.self, from: Data(GPSLog.dumpedHelp().utf8))
        var found: [String: [String: [String]]] = [:]
        for command in tool.command.subcommands ?? [] {
            for argument in command.arguments ?? [] {
                guard let values = argument.allValues else { continue }
                for name in argument.names ?? [] { found[command.commandName, default: [:]][name.name] = values }
            }
        }
        return found
    }
}
