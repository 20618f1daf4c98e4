// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Typed JSON decoding for the payloads: a number must be a JSON number (a bool, string or null where one is
/// required is refused; `JSONSerialization` had read `false` as 0 and `true` as 1), and memory stays a small
/// multiple of the body (`JSONDecoder` keeps one compact map of the document, no dictionary per object).
enum PayloadJSON {
    /// Decodes `T` from `data`; a failure becomes an `ImportError` naming the field by its path
    /// (`locations[3].properties.speed`) and `source`/`line`.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, source: String, line: Int) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw ImportError(error, source: source, line: line)
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError.malformed(file: source, line: line, reason: "not JSON (\(error.localizedDescription))")
        }
    }

    /// A coding path as people write it: `locations[3].properties.speed`.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    /// A time inside the plausible window (`TimeWindow`), else a refusal naming the field: year 0000 or 9999 was
    /// stored, and `export --format owntracks` then wrote a `tst` that its own import refused.
    /// `window` is read once per payload (a clock read per location cost 80,000 system calls per batch); `field`
    /// is made only for the refusal.
    static func plausible(
        _ time: Timestamp, in window: TimeWindow, field: @autoclosure () -> String, value: String, source: String,
        line: Int
    ) throws -> Timestamp {
        guard window.contains(time) else {
            throw ImportError.invalidValue(
                file: source, line: line, field: field(), value: value + " (outside 1980 to tomorrow)")
        }
        return time
    }

    /// A position by the one rule (`Geo.isPlausiblePosition`: valid, and not 0, 0, receivers' "no position").
    static func position(
        latitude: Double, longitude: Double, field: @autoclosure () -> String, source: String, line: Int
    ) throws {
        guard Geo.isPlausiblePosition(latitude: latitude, longitude: longitude) else {
            throw ImportError.invalidValue(file: source, line: line, field: field(), value: "\(latitude), \(longitude)")
        }
    }
}

/// Decoding keys from strings, for payloads whose keys are given at run time.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension ImportError {
    /// A decoding failure in words: which field, and what was wrong with it.
    init(_ error: DecodingError, source: String, line: Int) {
        switch error {
        case .typeMismatch(let type, let context):
            self = .invalidValue(
                file: source, line: line, field: PayloadJSON.path(context.codingPath),
                value: "not a \(type == Double.self || type == Int.self ? "number" : "\(type)".lowercased())")
        case .valueNotFound(_, let context):
            self = .invalidValue(file: source, line: line, field: PayloadJSON.path(context.codingPath), value: "null")
        case .keyNotFound(let key, let context):
            self = .invalidValue(
                file: source, line: line, field: PayloadJSON.path(context.codingPath + [key]), value: "missing")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let reason = (context.underlyingError as? LocalizedError)?.errorDescription ?? context.debugDescription
                self = .malformed(file: source, line: line, reason: "not JSON (\(reason))")
            } else {
                self = .invalidValue(
                    file: source, line: line, field: PayloadJSON.path(context.codingPath),
                    value: context.debugDescription)
            }
        @unknown default:
            self = .malformed(file: source, line: line, reason: "\(error)")
        }
    }
}
