// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogSystem

/// Replays a recorded NMEA log or GPX file with its own timing scaled by `speed` (2 = twice as fast, 0 = as fast
/// as possible). The demo replays the bundled sample this way through the real recorder.
public struct ReplaySource: FixSource {
    /// What to replay.
    public enum Input: Sendable {
        case file(String)
        /// NMEA text held in memory (the bundled sample), with a name for messages.
        case nmeaText(String, name: String)
    }

    /// What to replay.
    public let input: Input
    /// How many times faster than recorded; 0: as fast as possible.
    public let speed: Double
    private let stats = StatisticsBox()

    /// A replay of `input` at `speed`; reads nothing until `events()` is asked for.
    public init(input: Input, speed: Double) {
        self.input = input
        self.speed = speed
    }

    /// `replay:PATH?speed=N` (the sample's name instead of a path).
    public var description: String {
        switch input {
        case .file(let path): "replay:\(path)?speed=\(speed)"
        case .nmeaText(_, let name): "replay:\(name)?speed=\(speed)"
        }
    }

    /// See `FixSource.statistics`.
    public var statistics: SourceStatistics { stats.snapshot }

    /// True when the file looks like GPX (an XML document) rather than NMEA.
    static func isGPX(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SourceError.cannotOpen(path: path, reason: SystemCallError(code: errno).reason)
        }
        defer { try? handle.close() }
        let head = String(decoding: handle.readData(ofLength: 512), as: UTF8.self)
        return head.contains("<gpx") || head.hasPrefix("<?xml")
    }

    /// Streams the input's fixes at their recorded pace divided by `speed`; ends at the end of the input.
    public func events() -> AsyncThrowingStream<[SourceEvent], Error> {
        let input = input
        let speed = speed
        let stats = stats
        return ThreadedProducer.stream(name: "gpslog replay") { producer in
            var pacer = Pacer(speed: speed)
            stats.update { $0.connected = true }
            defer { stats.update { $0.connected = false } }
            let emit: (SourceEvent) throws -> Void = { event in
                if producer.stopped { throw CancellationError() }
                if case .fix(let fix) = event { pacer.wait(until: fix.time) }
                // What `status` shows as the last sentence, as a live source does when its receiver speaks.
                stats.update { $0.lastSentence = .now }
                try producer.send(event)
            }
            switch input {
            case .nmeaText(let text, _):
                var decoder = NMEADecoder()
                try decoder.decode(text: text, emit)
                stats.update {
                    $0.badSentences = decoder.statistics.badChecksum + decoder.statistics.unparsable
                    $0.implausibleTimes = decoder.statistics.implausibleTimes
                }
            case .file(let path):
                if try ReplaySource.isGPX(path) {
                    try GPXFixReader(path: path).read { try emit(.fix($0)) }
                } else {
                    let counted = { (s: NMEAStatistics) in
                        stats.update {
                            $0.badSentences = s.badChecksum + s.unparsable
                            $0.implausibleTimes = s.implausibleTimes
                        }
                    }
                    // The last counts too: the end of the file drops what was still held for its time.
                    counted(try NMEAFileReader(path: path).read(emit, progress: counted))
                }
            }
        }
    }
}

/// Sleeps so that fixes come out at their recorded pace divided by `speed`.
struct Pacer {
    let speed: Double
    private var origin: (fix: Timestamp, wall: ContinuousClock.Instant)?

    init(speed: Double) { self.speed = speed }

    mutating func wait(until time: Timestamp) {
        guard speed > 0 else { return }
        guard let origin else {
            self.origin = (time, .now)
            return
        }
        let offset = Double(time.milliseconds - origin.fix.milliseconds) / 1000 / speed
        let target = origin.wall + .milliseconds(Int64(offset * 1000))
        let remaining = target - .now
        if remaining > .zero {
            let ms = Double(remaining.components.seconds) * 1000 + Double(remaining.components.attoseconds) / 1e15
            usleep(useconds_t(min(ms, 60_000) * 1000))
        }
    }
}
