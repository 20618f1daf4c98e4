// SPDX-License-Identifier: MIT
import Foundation

/// One option of a subcommand, as the config layer needs to know it: its key (the long name), whether it takes a
/// value, whether it repeats, what its value is (any word, or a path), and its default.
public struct OptionSpec: Sendable, Equatable {
    /// Whether an option takes a value or stands alone.
    public enum Kind: Sendable, Equatable {
        /// `--name VALUE`.
        case option
        /// `--name` alone (true); `inversion` names the `--no-name` spelling when there is one.
        case flag
    }

    /// What an option's value is, as far as a config file's value is checked and resolved before the command runs
    /// (the command's own parser then reads the word into the option's Swift type, and its checks judge it).
    public enum ValueType: Sendable, Equatable {
        /// Any word: a number, a duration, a URL... the option's parser judges it.
        case text
        /// A file: `~` and `~/` in a config file's value stand for `$HOME`.
        case path
    }

    /// The long name without dashes: the key in a config file.
    public var name: String
    /// Whether it takes a value (`--name VALUE`) or is a flag (`--name`).
    public var kind: Kind
    /// Whether it may be given more than once; only such an option takes an array in a config file.
    public var isRepeating: Bool
    /// A flag's inverted long name (`no-name`), when it has one.
    public var inversion: String?
    /// Single-letter spellings, without the dash.
    public var shortNames: [String]
    /// The default as `--help` shows it.
    public var defaultValue: String?
    /// What its value is: any word, or a path (whose leading `~` a config file's value may use).
    public var valueType: ValueType

    /// The option `name` of `kind`; by default it is given once, has no `no-` spelling, short names or default,
    /// and takes any word.
    public init(
        name: String, kind: Kind, isRepeating: Bool = false, inversion: String? = nil, shortNames: [String] = [],
        defaultValue: String? = nil, valueType: ValueType = .text
    ) {
        self.name = name
        self.kind = kind
        self.isRepeating = isRepeating
        self.inversion = inversion
        self.shortNames = shortNames
        self.defaultValue = defaultValue
        self.valueType = valueType
    }
}

/// One row of the option table: a config key, the subcommands that take it, and the option it is there.
public struct OptionEntry: Sendable, Equatable {
    /// The config key: the option's long name.
    public var key: String
    /// The subcommands that take the option, in name order.
    public var commands: [String]
    /// The option, as each of those subcommands has it.
    public var spec: OptionSpec
}

/// The options of every configurable subcommand, read from the command-line parser (so there is no second list).
public struct OptionCatalog: Sendable {
    /// Subcommand name -> key -> option.
    public var commands: [String: [String: OptionSpec]]

    /// Keys that name options but cannot be set as settings: the file's own location, and the profile (chosen by a
    /// top-level `profile = "NAME"` instead).
    static let notConfigurable: Set<String> = ["config", "profile"]
    /// The key that chooses a profile, at the top of a file.
    static let profileKey = "profile"
    /// The same, for a file that also defines `[profile.NAME]` tables: TOML cannot have `profile` as a string and a
    /// table at once.
    static let defaultProfileKey = "default-profile"
    /// The table of user profiles.
    static let profilesTable = "profile"
    /// Options that stand for one another: setting one in a layer drops the other from the layers below.
    static let alternatives: [Set<String>] = [["token", "token-file"]]

    /// The catalog of `commands`: subcommand name -> key -> option.
    public init(commands: [String: [String: OptionSpec]]) {
        self.commands = commands
    }

    /// The table: one row per key and option, with the subcommands that take that option, by key.
    public var entries: [OptionEntry] {
        var rows: [OptionEntry] = []
        for (command, options) in commands.sorted(by: { $0.key < $1.key }) {
            for (key, spec) in options.sorted(by: { $0.key < $1.key }) {
                if let i = rows.firstIndex(where: { $0.key == key && $0.spec == spec }) {
                    rows[i].commands.append(command)
                } else {
                    rows.append(OptionEntry(key: key, commands: [command], spec: spec))
                }
            }
        }
        return rows.sorted { ($0.key, $0.commands.first ?? "") < ($1.key, $1.commands.first ?? "") }
    }

    /// Every key some subcommand takes.
    var allKeys: Set<String> { Set(commands.values.flatMap(\.keys)) }

    func spec(_ key: String, in command: String) -> OptionSpec? { commands[command]?[key] }

    /// Whether a top-level key (it applies to each subcommand that has the option) names an option anywhere.
    func isKnownAnywhere(_ key: String) -> Bool { commands.values.contains { $0[key] != nil } }

    /// The keys that stand for `key` (itself included).
    static func alternatives(of key: String) -> Set<String> {
        alternatives.first { $0.contains(key) } ?? [key]
    }

    /// A close spelling among `candidates`, for "did you mean": underscores for hyphens, or at most two edits.
    static func suggestion(for word: String, among candidates: some Sequence<String>) -> String? {
        let hyphenated = word.replacingOccurrences(of: "_", with: "-").lowercased()
        var best: (String, Int)?
        for candidate in candidates {
            if candidate == hyphenated { return candidate }
            let d = editDistance(hyphenated, candidate)
            if d <= 2, best.map({ d < $0.1 || (d == $0.1 && candidate < $0.0) }) ?? true { best = (candidate, d) }
        }
        return best?.0
    }

    /// Levenshtein distance, for short words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
