// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import Logging

/// Reads NMEA 0183 from a serial device (set up with termios at `baud`), a file, or standard input (`-`), as fast
/// as it arrives. Bad sentences are counted (see `statistics`) and skipped, never fatal. A device is read through
/// unplugs (see `DeviceReader`); a file or standard input ends the stream at its end.
public struct NMEASource: FixSource {
    /// The serial device, the file, or `-` for standard input.
    public let path: String
    /// The serial device's speed in bits a second; nil: 4800, NMEA 0183's own.
    public let baud: Int?
    /// How long a device may send nothing before it is reopened (see `DeviceReader`); nil: forever. Files and
    /// standard input are read to their end whatever the pauses.
    public let watchdog: Duration?
    private let stats = StatisticsBox()
    private let logger: Logger

    /// A source reading `path`; opens it only when `events()` is asked for.
    public init(
        path: String, baud: Int? = nil, watchdog: Duration? = nil, logger: Logger = Logger(label: "gpslog.nmea")
    ) {
        self.path = path
        self.baud = baud
        self.watchdog = watchdog
        self.logger = logger
    }

    /// `nmea:PATH`, with `?baud=N` when a speed was given.
    public var description: String { "nmea:\(path)" + (baud.map { "?baud=\($0)" } ?? "") }
    /// See `FixSource.statistics`.
    public var statistics: SourceStatistics { stats.snapshot }

    /// Reads the device, file or standard input on a thread of its own and streams the fixes and headings decoded.
    public func events() -> AsyncThrowingStream<[SourceEvent], Error> {
        let path = path
        let stats = stats
        if path != "-" && SerialPort.isDevicePath(path) {
            let reader = DeviceReader(path: path, baud: baud ?? 4800, watchdog: watchdog, stats: stats, logger: logger)
            return ThreadedProducer.stream(name: "gpslog nmea \(path)") { try reader.run($0) }
        }
        return ThreadedProducer.stream(name: "gpslog nmea \(path)") { producer in
            stats.update { $0.didConnect(reconnect: false) }
            defer { stats.update { $0.connected = false } }
            let reader = NMEAFileReader(path: path)
            let counted = { (s: NMEAStatistics) in
                stats.update {
                    $0.badSentences = s.badChecksum + s.unparsable
                    $0.implausibleTimes = s.implausibleTimes
                    $0.lastSentence = .now
                }
            }
            // The last counts too: the end of the file drops what was still held for its time.
            counted(try reader.read({ try producer.send($0) }, progress: counted))
        }
    }
}
