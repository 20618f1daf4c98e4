// SPDX-License-Identifier: MIT
import Foundation
import Testing

@testable import GPSLogCommands
@testable import GPSLogConfig

/// Every key of the option table reaches its own option: for each configurable subcommand and each of its keys, a
/// setting of that key, applied to the parsed command (`Configurable.apply`), changes that option's value and no
/// other. An option added to a command without its line in `apply` fails here, not in silence at a user's.
@Suite struct ConfigReachTests {
    /// Arguments a command cannot be parsed without (its required options and positionals).
    static let required: [String: [String]] = [
        "prune": ["--older-than", "1y"], "split": ["S", "--at", "2026-01-01T00:00:00Z"], "plot": ["S", "-o", "a.svg"],
    ]
    /// Values tried in turn, for options that take any word; the first the option takes and that changes it wins.
    static let words = [
        "7", "2s", "0.5", "2d", "u/d", "b.svg", "off", "2026-01-02T00:00:00Z", "Europe/Amsterdam", "4,52,5,53",
    ]
    /// Options whose key is not their property's name in kebab case.
    static let customNames = ["deprecatedFrom": "from", "accept2xx": "accept-2xx"]

    @Test func everyKeyReachesItsCommand() throws {
        let catalog = try OptionCatalog.gpslog()
        let choices = try Self.allValues()
        var checked = 0
        for (command, options) in catalog.commands.sorted(by: { $0.key < $1.key }) where !options.isEmpty {
            let parsed = try #require(Self.parse(command), "\(command) does not parse")
            for (key, spec) in options.sorted(by: { $0.key < $1.key }) {
                var words: [ConfigValue] =
                    spec.kind == .flag
                    ? [.boolean(true), .boolean(false)]
                    : ((choices[command]?[key] ?? []) + Self.words).map(ConfigValue.string)
                if spec.isRepeating { words = words.map { .array([$0]) } }
                let changed = words.lazy.compactMap { Self.changes(parsed, key: key, value: $0) }.first { !$0.isEmpty }
                let labels = try #require(changed, "\(command): a setting of \(key) changes no option")
                #expect(labels.map(Self.key(of:)) == [key], "\(command): \(key) changed \(labels)")
                checked += 1
            }
        }
        #expect(checked > 100, "\(checked) keys")
    }

    /// A refused value names the file, the line and the key, in the words the parser uses for a flag.
    @Test func aRefusedValueNamesItsOrigin() throws {
        var record = try #require(Self.parse("record"))
        let origin = ConfigOrigin.file(path: "/c/config.toml", line: 4, profile: nil)
        let far = EffectiveSetting(key: "min-distance", value: .string("far"), origin: origin)
        do {
            try record.apply(ResolvedSettings([far]))
            Issue.record("min-distance = \"far\" was taken")
        } catch let error as ConfigError {
            let message = error.errorDescription ?? ""
            #expect(message.hasPrefix("/c/config.toml:4: min-distance: The value 'far' is invalid"), "\(message)")
        }
    }

    /// `command` parsed from its required arguments alone, its checks waiting as they do in `main`.
    static func parse(_ command: String) -> (any Configurable)? {
        let lines = required[command].map { [$0] } ?? [[], ["x"], ["x", "x"]]
        for line in lines {
            let parsed = try? OptionChecks.$deferred.withValue(true) { try GPSLog.parseAsRoot([command] + line) }
            if let parsed { return parsed as? any Configurable }
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
