// SPDX-License-Identifier: MIT
import GPSLogModel

/// A value from a config file or a profile, in Swift terms (the TOML document is converted once, when read).
public enum ConfigValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case array([ConfigValue])
    /// A table where a value was expected; only reported as an error.
    case table
    /// A TOML date or time: no option takes one, so it is only reported as an error.
    case date
    /// A built-in profile's "none": the option goes back to its default, whatever a file below set.
    case unset

    /// The value as one command-line argument; nil for the kinds no option takes as a word.
    public var argument: String? {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .boolean(let b): b ? "true" : "false"
        case .array, .table, .date, .unset: nil
        }
    }

    /// How the value reads in `config show` and in messages: TOML's own spelling.
    public var display: String {
        switch self {
        case .string(let s): TOMLText.string(s)
        case .array(let items): "[" + items.map(\.display).joined(separator: ", ") + "]"
        case .table: "{...}"
        case .date: "(a date)"
        case .unset: "(none)"
        default: argument ?? ""
        }
    }

    /// The TOML kind, as messages name it.
    var kindName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .number: "a number"
        case .boolean: "true or false"
        case .array: "an array"
        case .table: "a table"
        case .date: "a date"
        case .unset: "nothing"
        }
    }
}

/// Where a value came from, as `config show` prints it.
public enum ConfigOrigin: Sendable, Equatable, CustomStringConvertible {
    /// Given on the command line.
    case flag
    /// From one of gpslog's own environment variables.
    case environment(String)
    /// From a file, at a line (nil when the line could not be found). `profile` names the `[profile.NAME]` table.
    case file(path: String, line: Int?, profile: String?)
    /// From a built-in profile.
    case builtInProfile(String)
    /// The option's own default.
    case `default`

    /// Whether the value came from an environment variable (which the program reads itself).
    public var isEnvironment: Bool {
        if case .environment = self { return true }
        return false
    }

    /// As `config show` prints it: `flag`, `env NAME`, `FILE:LINE` (then ` (profile NAME)` for a value from a
    /// `[profile.NAME]` table), `profile NAME` for a built-in profile, or `default`.
    public var description: String {
        switch self {
        case .flag: "flag"
        case .environment(let name): "env " + name
        case .file(let path, let line, let profile):
            FileLocation(path: path, line: line).description + (profile.map { " (profile \($0))" } ?? "")
        case .builtInProfile(let name): "profile " + name
        case .default: "default"
        }
    }
}

/// A file and a line in it, printed as `path:line` as compilers do.
public struct FileLocation: Sendable, Equatable, CustomStringConvertible {
    /// The file's path, as given.
    public var path: String
    /// The 1-based line; nil when it is not known.
    public var line: Int?

    /// The place `line` (nil: unknown) of the file at `path`.
    public init(path: String, line: Int?) {
        self.path = path
        self.line = line
    }

    /// `path:line`, or the path alone when the line is unknown; control characters in the path are escaped.
    public var description: String { path.visible + (line.map { ":\($0)" } ?? "") }
}

/// TOML's spelling of values gpslog writes.
enum TOMLText {
    /// A basic string, with the characters TOML requires escaped.
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16, uppercase: true)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A key, bare when TOML allows it, else quoted.
    static func key(_ k: String) -> String {
        let bare =
            !k.isEmpty
            && k.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                    || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
        return bare ? k : string(k)
    }
}

extension ConfigValue: Encodable {
    /// Strings, numbers and booleans as JSON's own; arrays as arrays.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let s): try container.encode(s)
        case .integer(let i): try container.encode(i)
        case .number(let d): try container.encode(d)
        case .boolean(let b): try container.encode(b)
        case .array(let items): try container.encode(items)
        case .table, .date, .unset: try container.encodeNil()
        }
    }
}
