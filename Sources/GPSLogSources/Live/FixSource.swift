// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Counters a source keeps while it runs, read by `gpslog status`.
public struct SourceStatistics: Sendable, Equatable {
    /// Sentences or messages that could not be used (bad checksums, garbage, malformed JSON).
    public var badSentences = 0
    /// Whether the source is connected to its receiver (a gpsd socket, an open device).
    public var connected = false
    /// How many times the source got its receiver back after losing it (a device reopened, gpsd reached again).
    public var reconnects = 0
    /// What the source waits for while it is not connected: `device` (a serial device to come back) or `daemon`
    /// (gpsd to answer); nil while connected, before the first attempt, and for files.
    public var waitingFor: SourceWait?
    /// Since when it waits (monotonic, so a clock set at boot does not make the wait look hours long).
    public var waitingSince: ContinuousClock.Instant?
    /// When the last sentence (NMEA) or report (gpsd JSON) arrived, whether or not it held a fix.
    public var lastSentence: ContinuousClock.Instant?
    /// Fixes (and headings) the source's decoder dropped for their time before the recorder saw them: outside the
    /// plausible window, or far from the times around them and not confirmed (`TimeConsensus`).
    public var implausibleTimes = 0
    /// Counters at zero, not connected, waiting for nothing yet.
    public init() {}

    /// The source lost its receiver, or could not reach it: it waits for `what`, from now unless it already did.
    public mutating func startWaiting(for what: SourceWait) {
        connected = false
        waitingFor = what
        if waitingSince == nil { waitingSince = .now }
    }

    /// The source reached its receiver; a `reconnect` when it had it before.
    public mutating func didConnect(reconnect: Bool) {
        connected = true
        waitingFor = nil
        waitingSince = nil
        if reconnect { reconnects += 1 }
    }
}

/// What a source that is not connected waits for.
public enum SourceWait: String, Sendable, Equatable, Codable {
    /// A serial or character device (or its udev symlink) to come back.
    case device
    /// The gpsd daemon to answer.
    case daemon
}

/// A live or replayed stream of fixes and headings: gpsd, an NMEA device or file, or a replay.
public protocol FixSource: Sendable, CustomStringConvertible {
    /// The events, in order, in batches of whatever arrived since the consumer last asked (one event at a time for
    /// a live receiver, thousands for a replay at full speed). The stream ends when a finite source (a file, a
    /// replay) is exhausted; cancelling the consuming task stops the source.
    func events() -> AsyncThrowingStream<[SourceEvent], Error>
    /// A snapshot of the counters, safe to read from any thread.
    var statistics: SourceStatistics { get }
}

/// A lock-protected box for statistics shared between a source's reading thread and its readers.
public final class StatisticsBox: @unchecked Sendable {
    // @unchecked: every access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value = SourceStatistics()
    /// A box holding counters at zero.
    public init() {}
    /// A copy of the counters as they are now.
    public var snapshot: SourceStatistics { lock.withLock { value } }
    /// Changes the counters under the lock; keep `body` short.
    public func update(_ body: (inout SourceStatistics) -> Void) { lock.withLock { body(&value) } }
}
