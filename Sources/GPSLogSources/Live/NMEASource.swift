// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Reads NMEA 0183 from a serial device (set up with termios at `baud`), a file, or standard input (`-`), as fast
/// as it arrives. Bad sentences are counted (see `statistics`) and skipped, never fatal.
public struct NMEASource: FixSource {
    public let path: String
    public let baud: Int?
    private let stats = StatisticsBox()

    public init(path: String, baud: Int? = nil) {
        self.path = path
        self.baud = baud
    }

    public var description: String { "nmea:\(path)" + (baud.map { "?baud=\($0)" } ?? "") }
    public var statistics: SourceStatistics { stats.snapshot }

    public func events() -> AsyncThrowingStream<[SourceEvent], Error> {
        let path = path
        let baud = baud
        let stats = stats
        return ThreadedProducer.stream(name: "gpslog nmea \(path)") { producer in
            if path != "-" && SerialPort.isCharacterDevice(path) {
                try SerialPort.configure(path: path, baud: baud ?? 4800)
            }
            stats.update { $0.connected = true }
            defer { stats.update { $0.connected = false } }
            let reader = NMEAFileReader(path: path)
            try reader.read(
                { try producer.send($0) },
                progress: { s in
                    stats.update { $0.badSentences = s.badChecksum + s.unparsable }
                })
        }
    }
}
