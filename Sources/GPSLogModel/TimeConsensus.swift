// SPDX-License-Identifier: MIT

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The times a position may carry: from the start of GPS time to a little after now.
///
/// "Now" is the system clock when it is plausible (not before `releaseDate`); a board without a real-time clock
/// starts in 1970, and then the upper end is `releaseDate` plus twenty years, so a recorder still takes fixes long
/// after a release without accepting the years 2070 or 9999 that a corrupt sentence can carry.
public struct TimeWindow: Sendable, Equatable {
    /// The earliest plausible time, included.
    public var earliest: Timestamp
    /// The latest plausible time, included.
    public var latest: Timestamp

    /// Creates a window from its ends, both included.
    public init(earliest: Timestamp, latest: Timestamp) {
        self.earliest = earliest
        self.latest = latest
    }

    /// 1980-01-01, the year GPS time began (two-digit NMEA years 80-99 are read as 1980-1999).
    public static let gpsEra = Timestamp(milliseconds: Timestamp.days(year: 1980, month: 1, day: 1) * 86_400_000)
    /// No gpslog was released before this day: a system clock before it has not been set.
    public static let releaseDate = Timestamp(milliseconds: Timestamp.days(year: 2026, month: 11, day: 1) * 86_400_000)

    /// The window for a clock reading `now` (milliseconds since the epoch): up to a day past a plausible clock,
    /// else up to twenty years past the release.
    public static func around(now: Int64) -> TimeWindow {
        let day: Int64 = 86_400_000
        let latest = now >= releaseDate.milliseconds ? now + day : releaseDate.milliseconds + 20 * 366 * day
        return TimeWindow(earliest: gpsEra, latest: Timestamp(milliseconds: latest))
    }

    /// The window for the system clock now.
    public static var current: TimeWindow {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return around(now: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// Whether `t` lies in the window, ends included.
    public func contains(_ t: Timestamp) -> Bool { t >= earliest && t <= latest }
}

/// Keeps the times of a stream of positions plausible and self-healing: a time outside the `TimeWindow` is
/// refused, and a time far from the recent consensus (a day or more away, either way: a forward-dated or
/// week-rollover sentence) is held back and dropped unless the next `confirmations` items agree with it rather than
/// with the consensus. One bad sentence therefore never moves a session to another year, and never makes the sampler
/// drop the good fixes after it as "older than the last".
///
/// Until a consensus exists (the start of a stream) every item is held until `confirmations` items agree; at the end
/// of a stream, held items that contradict no consensus are delivered. A live source thus delivers its first fixes
/// a few epochs late, never wrong.
public struct TimeConsensus<Item>: Sendable where Item: Sendable {
    /// Items with a time outside it are refused.
    public let window: TimeWindow
    /// Items that must agree before a new timeline is believed.
    public let confirmations: Int
    /// How far (milliseconds, either way) an item may be from the one before it and still agree with it.
    public let tolerance: Int64

    /// The time of the last item delivered.
    public private(set) var consensus: Timestamp?
    private var held: [(time: Timestamp, item: Item)] = []
    /// Items refused for a time outside the window.
    public private(set) var outsideWindow = 0
    /// Items dropped because the items after them did not agree.
    public private(set) var againstConsensus = 0

    /// By default: the current window, 3 items to agree, each within a day of the one before.
    public init(window: TimeWindow = .current, confirmations: Int = 3, tolerance: Int64 = 86_400_000) {
        self.window = window
        self.confirmations = confirmations
        self.tolerance = tolerance
        held.reserveCapacity(confirmations)
    }

    @inline(__always) func agree(_ a: Timestamp, _ b: Timestamp) -> Bool {
        let d = b.milliseconds &- a.milliseconds
        return d >= -tolerance && d <= tolerance
    }

    /// Takes one item at `time`; calls `deliver` for every item that becomes certain, in order.
    public mutating func admit(_ item: Item, at time: Timestamp, _ deliver: (Item) throws -> Void) rethrows {
        guard window.contains(time) else {
            outsideWindow += 1
            return
        }
        if let c = consensus, agree(c, time) {  // the common case: on time
            // What was held disagreed with the consensus, and this item sides with it.
            againstConsensus += held.count
            held.removeAll(keepingCapacity: true)
            consensus = time
            try deliver(item)
            return
        }
        held.append((time, item))
        // A new timeline: enough held items agree with this one. They go out in arrival order; the rest are dropped.
        if agreeing(with: time) >= confirmations {
            try release(agreeingWith: time, deliver)
        } else if held.count > 4 * confirmations {
            againstConsensus += 1  // garbage that never agrees: memory stays bounded
            held.removeFirst()
        }
    }

    /// The end of the stream: without a consensus, the largest group of held items that agree is delivered (a file of
    /// one or two fixes); held items that contradict a consensus are dropped.
    public mutating func finish(_ deliver: (Item) throws -> Void) rethrows {
        if consensus == nil, !held.isEmpty {
            let counts = held.map { agreeing(with: $0.time) }
            let best = counts.indices.max { counts[$0] < counts[$1] }!
            try release(agreeingWith: held[best].time, deliver)
        }
        againstConsensus += held.count
        held.removeAll(keepingCapacity: true)
    }

    /// How many held items agree with `time`.
    private func agreeing(with time: Timestamp) -> Int {
        var n = 0
        for h in held where agree(h.time, time) { n += 1 }
        return n
    }

    private mutating func release(agreeingWith time: Timestamp, _ deliver: (Item) throws -> Void) rethrows {
        let items = held
        held.removeAll(keepingCapacity: true)
        for h in items {
            if agree(h.time, time) {
                consensus = h.time
                try deliver(h.item)
            } else {
                againstConsensus += 1
            }
        }
    }

    /// Items dropped or refused so far.
    public var dropped: Int { outsideWindow + againstConsensus }
}
