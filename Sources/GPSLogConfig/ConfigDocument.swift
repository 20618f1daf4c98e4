// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import TOMLKit

/// One `key = value` of a file or a profile, with the line it is on.
public struct ConfigEntry: Sendable, Equatable {
    /// The key as written: an option's long name (or `profile`, `default-profile`).
    public var key: String
    /// The value given to the key.
    public var value: ConfigValue
    /// The 1-based line it is on; nil in a built-in profile, or when the line could not be found.
    public var line: Int?

    /// The entry `key = value`, on `line` (nil: none, as in a built-in profile).
    public init(key: String, value: ConfigValue, line: Int? = nil) {
        self.key = key
        self.value = value
        self.line = line
    }
}

/// Settings for every subcommand (top-level keys) and for one subcommand each (`[record]`, `[upload]`, ...).
public struct ConfigSettings: Sendable, Equatable {
    /// Keys that apply to every subcommand that has the option.
    public var common: [ConfigEntry] = []
    /// Subcommand name -> its keys, which win over the common ones.
    public var sections: [String: [ConfigEntry]] = [:]

    /// Settings of `common` keys and of subcommand `sections`; both empty by default.
    public init(common: [ConfigEntry] = [], sections: [String: [ConfigEntry]] = [:]) {
        self.common = common
        self.sections = sections
    }
}

/// A profile: a named set of settings, built in or from a file's `[profile.NAME]`.
public struct Profile: Sendable, Equatable {
    /// The name that `--profile`, `$GPSLOG_PROFILE` and `profile = "NAME"` choose it by.
    public var name: String
    /// The keys it sets, common and per subcommand.
    public var settings: ConfigSettings
    /// The file that defines it; nil for a built-in.
    public var path: String?
}

/// A config file, read and checked against the options the subcommands have.
public struct ConfigDocument: Sendable {
    /// The file's path, as messages name it.
    public var path: String
    /// The file's keys outside its `[profile.NAME]` tables: the top-level ones and the subcommand tables'.
    public var settings: ConfigSettings
    /// The file's `[profile.NAME]` tables.
    public var profiles: [String: Profile]
    /// The file's top-level `profile = "NAME"` (or `default-profile`, beside `[profile.NAME]` tables).
    public var profileChoice: ConfigEntry?

    /// Reads the file at `path`; nil when there is none.
    public static func load(path: String, catalog: OptionCatalog) throws(ConfigError) -> ConfigDocument? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        return try parse(text, path: path, catalog: catalog)
    }

    /// Parses `text` (named `path` in messages) and checks every key and table against `catalog`.
    public static func parse(_ text: String, path: String, catalog: OptionCatalog) throws(ConfigError)
        -> ConfigDocument
    {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .syntax(FileLocation(path: path, line: error.source.begin.line), message: error.description)
        } catch {
            throw .syntax(FileLocation(path: path, line: nil), message: "\(error)")
        }
        var reader = DocumentReader(path: path, locator: LineLocator(text: text), catalog: catalog)
        return try reader.read(TOMLNode.entries(of: table))
    }
}

/// A TOML document as Swift values: tables keep their structure, everything else becomes a `ConfigValue`.
enum TOMLNode {
    case value(ConfigValue)
    case table([(String, TOMLNode)])

    static func entries(of table: TOMLTable) -> [(String, TOMLNode)] {
        table.keys.compactMap { key in table[key].map { (key, node($0)) } }
    }

    static func node(_ v: TOMLValueConvertible) -> TOMLNode {
        if let t = v.table { return .table(entries(of: t)) }
        return .value(value(v))
    }

    static func value(_ v: TOMLValueConvertible) -> ConfigValue {
        switch v.type {
        case .string: .string(v.string ?? "")
        case .int: .integer(v.int ?? 0)
        case .double: .number(v.double ?? 0)
        case .bool: .boolean(v.bool ?? false)
        case .array: .array(v.array.map { Array($0).map(value) } ?? [])
        case .table: .table
        case .date, .time, .dateTime: .date
        }
    }
}

/// Turns a document's tables into settings, checking each key against the subcommands' options.
struct DocumentReader {
    let path: String
    let locator: LineLocator
    let catalog: OptionCatalog

    func location(_ keyPath: [String]) -> FileLocation { FileLocation(path: path, line: locator.line(of: keyPath)) }

    mutating func read(_ top: [(String, TOMLNode)]) throws(ConfigError) -> ConfigDocument {
        var document = ConfigDocument(path: path, settings: ConfigSettings(), profiles: [:], profileChoice: nil)
        var rest: [(String, TOMLNode)] = []
        for (key, node) in top {
            switch (key, node) {
            case (OptionCatalog.profileKey, .value(let v)), (OptionCatalog.defaultProfileKey, .value(let v)):
                let here = origin(location([key]))
                guard case .string = v else {
                    throw .badValue(
                        origin: here, key: key,
                        message: "must be a profile's name in quotes, such as \"battery-saving\"")
                }
                if document.profileChoice != nil {
                    throw .badValue(origin: here, key: key, message: "give profile or default-profile, not both")
                }
                document.profileChoice = ConfigEntry(key: key, value: v, line: locator.line(of: [key]))
            case (OptionCatalog.profilesTable, .table(let profiles)):
                for (name, body) in profiles {
                    guard case .table(let entries) = body else {
                        throw .unknownKey(
                            location([key, name]), key: name, table: key, suggestion: nil)
                    }
                    document.profiles[name] = Profile(
                        name: name, settings: try settings(entries, prefix: [key, name]), path: path)
                }
            default:
                rest.append((key, node))
            }
        }
        document.settings = try settings(rest, prefix: [])
        return document
    }

    /// The common keys and subcommand sections under `prefix` (the top, or a profile's table).
    func settings(_ entries: [(String, TOMLNode)], prefix: [String]) throws(ConfigError) -> ConfigSettings {
        var settings = ConfigSettings()
        for (key, node) in entries {
            switch node {
            case .table(let inner):
                guard catalog.commands[key] != nil else {
                    throw .unknownTable(
                        location(prefix + [key]), name: (prefix + [key]).joined(separator: "."),
                        suggestion: OptionCatalog.suggestion(for: key, among: catalog.commands.keys))
                }
                var section: [ConfigEntry] = []
                for (innerKey, innerNode) in inner {
                    section.append(try entry(innerKey, innerNode, path: prefix + [key], command: key))
                }
                settings.sections[key] = section.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
            case .value:
                settings.common.append(try entry(key, node, path: prefix, command: nil))
            }
        }
        settings.common.sort { ($0.line ?? 0) < ($1.line ?? 0) }
        return settings
    }

    /// One key, checked: it names an option (of `command`, or of any subcommand at the top) and its value fits.
    func entry(_ key: String, _ node: TOMLNode, path keyPath: [String], command: String?) throws(ConfigError)
        -> ConfigEntry
    {
        let here = location(keyPath + [key])
        if OptionCatalog.notConfigurable.contains(key) { throw .notConfigurable(here, key: key) }
        let specs: [OptionSpec]
        if let command {
            specs = catalog.spec(key, in: command).map { [$0] } ?? []
        } else {
            specs = catalog.commands.values.compactMap { $0[key] }
        }
        guard let spec = specs.first else {
            let candidates = command.map { Array(catalog.commands[$0, default: [:]].keys) } ?? Array(catalog.allKeys)
            throw .unknownKey(
                here, key: key, table: keyPath.isEmpty ? nil : keyPath.joined(separator: "."),
                suggestion: OptionCatalog.suggestion(for: key, among: candidates))
        }
        guard case .value(let value) = node else {
            throw .badValue(origin: origin(here), key: key, message: "is a table; give it a value")
        }
        // A top-level key may name options of several subcommands: it must fit one of them.
        if specs.allSatisfy({ Self.mismatch(value, $0) != nil }), let problem = Self.mismatch(value, spec) {
            throw .badValue(origin: origin(here), key: key, message: problem)
        }
        return ConfigEntry(key: key, value: value, line: here.line)
    }

    func origin(_ l: FileLocation) -> ConfigOrigin { .file(path: l.path, line: l.line, profile: nil) }

    /// Why `value` cannot be given to `spec`, or nil when it can (the parser judges the words themselves).
    static func mismatch(_ value: ConfigValue, _ spec: OptionSpec) -> String? {
        switch (spec.kind, value) {
        case (.flag, .boolean): return nil
        case (.flag, _): return "is a flag: write true or false, not \(value.kindName)"
        case (.option, .array(let items)):
            guard spec.isRepeating else {
                return "takes one value, not an array (only options that may be repeated take arrays)"
            }
            return items.lazy.compactMap { $0.argument == nil ? "holds \($0.kindName): give strings or numbers" : nil }
                .first
        case (.option, _):
            return value.argument == nil ? "takes a string or a number, not \(value.kindName)" : nil
        }
    }
}
