// SPDX-License-Identifier: MIT
import Foundation

/// Counts events on any thread, and says when one should be logged: the first, then every `every`-th (a broker
/// refusing every few seconds for a day, a flood of dropped messages, said without flooding the log).
public final class EventCount: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var count = 0

    /// A count at zero.
    public init() {}

    /// How many were counted.
    public var total: Int { lock.withLock { count } }

    /// Counts one; true for the first and then every `every`-th.
    public func add(every: Int = 1000) -> Bool {
        lock.withLock {
            count += 1
            return count == 1 || count % every == 0
        }
    }
}
