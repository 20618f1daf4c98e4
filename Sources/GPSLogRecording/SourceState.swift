// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSources

/// Where the recording's source stands, for `gpslog status`: connected, or waiting for its device or daemon since
/// when, how often it came back, and when it last said anything.
///
/// Times are wall-clock ISO 8601 (UTC) for people, derived from monotonic ages, so a clock set while recording (a
/// Raspberry Pi has none until NTP answers) moves the times but never the ages.
public struct SourceState: Codable, Sendable, Equatable {
    /// `connected`, `waiting` (for the device or daemon, see `waitingFor`), or `connecting` (the first attempt).
    public var state: String
    /// `device` (a serial device to come back) or `daemon` (gpsd to answer) while waiting.
    public var waitingFor: String?
    /// Since when the source waits.
    public var waitingSince: String?
    /// Seconds it has been waiting.
    public var waitingSeconds: Double?
    /// How many times the receiver came back after it was lost.
    public var reconnects: Int
    /// When the last sentence (NMEA) or report (gpsd) arrived, fix or not.
    public var lastSentenceTime: String?
    /// Seconds since then.
    public var lastSentenceAgeSeconds: Double?

    /// The state a source's counters describe, as of `now`.
    public init(_ stats: SourceStatistics, now: ContinuousClock.Instant = .now, wallClock: Date = Date()) {
        func age(_ instant: ContinuousClock.Instant?) -> Double? {
            instant.map { (max(0, Backoff.seconds(now - $0)) * 10).rounded() / 10 }
        }
        func time(_ age: Double?) -> String? {
            age.map { Timestamp(seconds: wallClock.timeIntervalSince1970 - $0).iso8601(fraction: false) }
        }
        state = stats.connected ? "connected" : stats.waitingFor == nil ? "connecting" : "waiting"
        waitingFor = stats.connected ? nil : stats.waitingFor?.rawValue
        waitingSeconds = stats.connected ? nil : age(stats.waitingSince)
        waitingSince = time(waitingSeconds)
        reconnects = stats.reconnects
        lastSentenceAgeSeconds = age(stats.lastSentence)
        lastSentenceTime = time(lastSentenceAgeSeconds)
    }
}

extension RecorderStatus {
    /// This status with the state of `source` filled in.
    func withSourceState(of source: any FixSource) -> RecorderStatus {
        var status = self
        status.sourceState = SourceState(source.statistics)
        return status
    }
}

extension ControlResponse {
    /// This answer with the state of `source` in its status, when it carries one.
    func withSourceState(of source: any FixSource) -> ControlResponse {
        var response = self
        response.status = status?.withSourceState(of: source)
        return response
    }
}
