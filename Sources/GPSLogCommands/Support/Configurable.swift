// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogConfig

/// A command, or an option group, whose options the config files and profiles may set.
protocol Configurable: ParsableArguments {
    /// Sets each option that `settings` holds (the command line did not give it) from its setting, read into the
    /// option's own type: `try settings.set(&minDistance, "min-distance")` for each option, and `apply` of each
    /// option group.
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError)
}

/// The settings of one command that its command line does not give, by key, as the config layer resolved them.
struct ResolvedSettings: Sendable {
    private(set) var byKey: [String: EffectiveSetting]
    /// The options' short names (`o` for `output`), by key, for the messages that name an option by one.
    var shortNames: [String: [String]] = [:]

    init(_ settings: [EffectiveSetting] = []) {
        byKey = Dictionary(settings.map { ($0.key, $0) }) { $1 }
    }

    var isEmpty: Bool { byKey.isEmpty }
    var all: [EffectiveSetting] { byKey.values.sorted { $0.key < $1.key } }

    /// Sets `property` to the setting of `key`, when there is one.
    func set<T: ExpressibleByArgument>(_ property: inout T, _ key: String) throws(ConfigError) {
        guard let setting = byKey[key], let word = setting.value.argument else { return }
        property = try Self.converted(word, setting)
    }

    /// Sets an optional `property` to the setting of `key`, when there is one.
    func set<T: ExpressibleByArgument>(_ property: inout T?, _ key: String) throws(ConfigError) {
        guard let setting = byKey[key], let word = setting.value.argument else { return }
        let value: T = try Self.converted(word, setting)
        property = value
    }

    /// Sets a repeated option's `property` to the setting of `key` (an array, or one value), when there is one.
    func set<T: ExpressibleByArgument>(_ property: inout [T], _ key: String) throws(ConfigError) {
        guard let setting = byKey[key] else { return }
        let words: [String]
        switch setting.value {
        case .array(let items): words = items.compactMap(\.argument)
        default:
            // A profile's "none" leaves the default, as for any other option.
            guard let word = setting.value.argument else { return }
            words = [word]
        }
        var values: [T] = []
        for word in words { values.append(try Self.converted(word, setting)) }
        property = values
    }

    /// `word` read as a flag reads it (the option type's own `init?(argument:)`), so a file and the command line
    /// are held to the same rules.
    private static func converted<T: ExpressibleByArgument>(_ word: String, _ setting: EffectiveSetting)
        throws(ConfigError) -> T
    {
        guard let value = T(argument: word) else {
            let shown = GPSLog.Config.shown(setting.key, .string(word)).argument ?? ""
            throw .badValue(
                origin: setting.origin, key: setting.key,
                message: "The value '\(shown)' is invalid for '--\(setting.key)'\(choices(T.allValueStrings))")
        }
        return value
    }

    /// The values an option takes, when it lists them, as the parser says them after a refused one.
    private static func choices(_ values: [String]) -> String {
        guard let last = values.last.map({ "'\($0)'" }) else { return "" }
        let quoted = values.dropLast().map { "'\($0)'" }
        let list =
            quoted.isEmpty ? last : quoted.joined(separator: ", ") + (quoted.count == 1 ? " and " : " or ") + last
        return ". Please provide one of \(list)."
    }

    /// The settings to blame for `error`, which the command's checks threw once the settings were applied: the one
    /// whose option the message names (`--output`, or `-o`); else, when the command line alone passes the checks
    /// (`commandLineError` is nil), all of them. Nil when the command line itself is wrong.
    func blame(_ error: any Error, commandLineError: (any Error)?) -> ConfigError? {
        guard !isEmpty else { return nil }
        let message = String(GPSLog.message(for: error).split(separator: "\n").first ?? "")
        for setting in all.sorted(by: { $0.key.count > $1.key.count })
        where (["--" + setting.key] + shortNames[setting.key, default: []].map { "-" + $0 }).contains(where: {
            Self.names(message, $0)
        }) {
            return .badValue(origin: setting.origin, key: setting.key, message: message)
        }
        guard commandLineError == nil else { return nil }
        let settings = all
        if let only = settings.first, settings.count == 1 {
            return .badValue(origin: only.origin, key: only.key, message: message)
        }
        return .refusedSettings(message: message, settings: settings.map { "\($0.origin): \($0.key)" })
    }

    /// Whether `message` holds `option` as a whole word (`--min-distance`, not `--min-distance-x`; `-o`, not the
    /// `-o` of `--output`).
    private static func names(_ message: String, _ option: String) -> Bool {
        let isWordPart = { (c: Character) in c.isLetter || c.isNumber || c == "-" }
        var rest = message[...]
        while let range = rest.range(of: option) {
            let next = rest[range.upperBound...].first
            let previous =
                range.lowerBound > message.startIndex ? message[message.index(before: range.lowerBound)] : nil
            if !(next.map(isWordPart) ?? false) && !(previous.map(isWordPart) ?? false) { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }
}

/// When the options' checks (`validate()`) run. swift-argument-parser runs them while it parses; gpslog parses the
/// command line alone, applies the config files' settings, then runs them, so a setting can complete a command line
/// (`[export] output = "a.gpx"` says the format) and is judged as a flag is.
enum OptionChecks {
    /// True while the command line alone is parsed: each `validate()` returns at once.
    @TaskLocal static var deferred = false

    /// The value of an option the command needs, which the parser takes as optional so that a config file may give
    /// it (the parser would report it missing before the settings are applied). Missing, it is reported in the
    /// parser's own words: `required(at, "--at <at>")`.
    static func required<Value>(_ value: Value?, _ synopsis: String) throws -> Value {
        guard let value else { throw ValidationError("Missing expected argument '\(synopsis)'") }
        return value
    }
}

/// An `@OptionGroup`'s value, for the checks of a parsed command's groups.
protocol OptionGroupValue {
    var groupValue: any ParsableArguments { get }
}

extension OptionGroup: OptionGroupValue {
    var groupValue: any ParsableArguments { wrappedValue }
}

extension ParsableArguments {
    /// Runs the checks swift-argument-parser runs while parsing: each option group's (in order, depth first), then
    /// this one's. (`validate()` is `mutating` in the protocol; gpslog's checks change nothing.)
    mutating func validateAll() throws {
        for child in Mirror(reflecting: self).children {
            guard var group = (child.value as? any OptionGroupValue)?.groupValue else { continue }
            try group.validateAll()
        }
        try validate()
    }
}
