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
            guard let v = Double(argument.dropLast(suffix.count)), v >= 0, v.isFinite else { return nil }
            milliseconds = Int64((v * factor).rounded())
            return
        }
        guard let v = Double(argument), v >= 0, v.isFinite else { return nil }
        milliseconds = Int64((v * 1000).rounded())
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
