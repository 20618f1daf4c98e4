// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Overland's logging modes (`--logging-mode`, a server's `logging_mode`).
public enum LoggingMode: String, Sendable, Codable, CaseIterable {
    /// Every point, in batches (with the pause, resume and visit records).
    case all
    /// Only the newest point at each send, `{"locations":[newest]}`: for endpoints that take the URL's query.
    case latest
    /// Only the newest point at each send, as one OwnTracks message (`_type: location`, with `m` and `t`).
    case owntracks
}

extension UploadReport {
    /// Takes the settings of one answer: a key sent again replaces the earlier value.
    mutating func merge(_ new: [ServerSetting]) {
        for setting in new {
            settings.removeAll { $0.section == setting.section && $0.name == setting.name }
            settings.append(setting)
        }
    }
}

/// An Overland server's answer, read for `set` (its remote configuration).
enum ServerAnswer {
    /// The settings in `set`, when the answer is a JSON object with `result: "ok"` (Overland applies them only
    /// then); none for anything else, including OwnTracks' `[]`. `send_interval` and `trip_mode` are section
    /// `top`; the keys of `main` and `trip` their own sections; other nested objects are skipped.
    static func settings(in text: String) -> [ServerSetting] {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(text.utf8)), answer.result == "ok",
            let set = answer.set
        else { return [] }
        var out: [ServerSetting] = []
        for (name, value) in set.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .object(let keys) where name == "main" || name == "trip":
                for (key, inner) in keys.sorted(by: { $0.key < $1.key }) {
                    if let text = inner.text { out.append(ServerSetting(section: name, name: key, value: text)) }
                }
            default:
                if let text = value.text { out.append(ServerSetting(section: "top", name: name, value: text)) }
            }
        }
        return out
    }

    struct Answer: Decodable {
        var result: String?
        var set: [String: Value]?
    }

    /// A JSON value as `set` carries it: strings mostly, some numbers and booleans, and the `main`/`trip` objects.
    enum Value: Decodable {
        case string(String)
        case bool(Bool)
        case number(Double)
        case object([String: Value])
        case other

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let n = try? c.decode(Double.self) {
                self = .number(n)
            } else if let s = try? c.decode(String.self) {
                self = .string(s)
            } else if let o = try? c.decode([String: Value].self) {
                self = .object(o)
            } else {
                self = .other
            }
        }

        /// The value as text (`200`, `true`, `50m`); nil for objects, arrays and null.
        var text: String? {
            switch self {
            case .string(let s): return s
            case .bool(let b): return b ? "true" : "false"
            case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            case .object, .other: return nil
            }
        }
    }
}
