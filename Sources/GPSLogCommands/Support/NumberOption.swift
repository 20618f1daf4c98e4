// SPDX-License-Identifier: MIT
import ArgumentParser

/// A decimal option whose `--help` default reads as a user writes it: `(default: 5)`, where a `Double` shows `5.0`.
struct NumberOption: ExpressibleByArgument, ExpressibleByIntegerLiteral, Sendable {
    var value: Double

    init(_ value: Double) { self.value = value }

    init(integerLiteral value: Int) { self.value = Double(value) }

    init?(argument: String) {
        guard let v = Double(argument), v.isFinite else { return nil }
        value = v
    }

    var defaultValueDescription: String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
