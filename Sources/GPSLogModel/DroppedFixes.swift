// SPDX-License-Identifier: MIT

/// Fixes a recording refused before sampling, by reason: shown by `status` and kept in the session's row.
public struct DroppedFixes: Sendable, Equatable, Codable {
    /// No position: NaN, out of range, or exactly 0, 0 (a receiver's "nothing yet").
    public var position = 0
    /// A time before the last fix's, or more than a day after it, that the fixes after it did not confirm.
    public var time = 0
    /// A position implying a speed above the limit (`--max-speed`), that the fixes after it did not confirm.
    public var speed = 0

    /// Creates the counts from their parts; each is 0 when not given.
    public init(position: Int = 0, time: Int = 0, speed: Int = 0) {
        self.position = position
        self.time = time
        self.speed = speed
    }

    /// All of them.
    public var total: Int { position + time + speed }

    /// The counts in words ("3 (2 time, 1 speed)"), for `show` and `status`.
    public var summary: String {
        let parts = [(position, "position"), (time, "time"), (speed, "speed")].filter { $0.0 > 0 }
        return parts.isEmpty ? "0" : "\(total) (" + parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
    }

    /// The counts of `a` less those of `b`, reason by reason: what was dropped since `b` was taken.
    public static func - (a: DroppedFixes, b: DroppedFixes) -> DroppedFixes {
        DroppedFixes(position: a.position - b.position, time: a.time - b.time, speed: a.speed - b.speed)
    }
}
