// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Counters a source keeps while it runs, read by `gpslog status`.
public struct SourceStatistics: Sendable, Equatable {
    /// Sentences or messages that could not be used (bad checksums, garbage, malformed JSON).
    public var badSentences = 0
    /// Whether the source is connected to its receiver (a gpsd socket, an open device).
    public var connected = false
    /// How many times the source reconnected after losing its receiver.
    public var reconnects = 0
    public init() {}
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
    public init() {}
    public var snapshot: SourceStatistics { lock.withLock { value } }
    public func update(_ body: (inout SourceStatistics) -> Void) { lock.withLock { body(&value) } }
}
