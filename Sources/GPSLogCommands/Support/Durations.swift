// SPDX-License-Identifier: MIT
import ArgumentParser

/// A duration option: `500ms`, `5s`, `2m`, `1h`, or a bare number of seconds.
struct DurationOption: ExpressibleByArgument, Sendable {
    var milliseconds: Int64
    /// The text it was given, for `--help`'s default (not `DurationOption(milliseconds: 1000)`).
    private(set) var text: String

    var defaultValueDescription: String { text }

    init?(argument: String) {
        text = argument
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("min", 60_000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, factor) in units where argument.hasSuffix(suffix) {
            guard let v = Double(argument.dropLast(suffix.count)), let ms = Self.milliseconds(v * factor) else {
                return nil
            }
            milliseconds = ms
            return
        }
        guard let v = Double(argument), let ms = Self.milliseconds(v * 1000) else { return nil }
        milliseconds = ms
    }

    /// Whole milliseconds, for a duration from 0 to a century (`1e300s` would trap converting to Int64).
    private static func milliseconds(_ v: Double) -> Int64? {
        guard v >= 0, v <= 100 * 366 * 86_400_000 else { return nil }
        return Int64(v.rounded())
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
