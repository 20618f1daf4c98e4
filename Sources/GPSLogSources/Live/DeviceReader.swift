// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import Logging

/// Reads NMEA from a serial device for as long as the recording runs, through unplugs: when read(2) fails (EIO,
/// ENXIO) or ends (EOF, a hung-up line), or the path is gone, it waits for the device to come back (`Backoff.device`,
/// 0.5 s doubling to 5 s), opens it again with the same termios settings and carries on, in the same stream of
/// events, so the recording stays in the same session; a `.resumed` event says where the new stretch starts.
///
/// A device that stays open but sends nothing for `watchdog` (a receiver behind a USB adapter that lost power, a
/// wedged one) is closed and opened again the same way.
///
/// Runs on the source's own reading thread; waiting never blocks the recorder, and stopping the recording ends a wait
/// at once.
struct DeviceReader {
    let path: String
    let baud: Int
    /// How long the device may stay silent before it is reopened; nil: forever.
    let watchdog: Duration?
    let stats: StatisticsBox
    let logger: Logger

    /// How often a wait for input looks at whether the recording stopped.
    static let pollSlice: Duration = .milliseconds(250)

    /// Reads until the consumer stops (`CancellationError`).
    /// - Throws: `SourceError.cannotOpen` when the device refuses to open at the start (permissions, not a
    ///   terminal); a device that is absent at the start is waited for.
    func run(_ producer: ThreadedProducer) throws {
        var backoff = Backoff.device
        var hadDevice = false
        var lostAt: ContinuousClock.Instant?
        // Bad sentences and time drops of earlier connections: each connection decodes afresh.
        var earlier = (bad: 0, times: 0)
        let shown = path.visible
        while true {
            let fd: Int32
            do {
                fd = try SerialPort.openDevice(path: path, baud: baud)
            } catch {
                guard hadDevice || error.isAbsent else { throw error.error }
                if stats.snapshot.waitingFor == nil {
                    logger.warning("\(shown) is not there (\(error.error.reason)); waiting for it to appear")
                }
                stats.update { $0.startWaiting(for: .device) }
                try producer.pause(for: backoff.next())
                continue
            }
            if let lostAt {
                let gap = Backoff.seconds(ContinuousClock.now - lostAt)
                logger.notice("\(shown) is back after \(String(format: "%.1f", gap)) s; reading it again")
            } else {
                logger.info("reading NMEA from \(shown) at \(baud) baud")
            }
            stats.update { $0.didConnect(reconnect: hadDevice) }
            if hadDevice { try producer.send(.resumed) }
            hadDevice = true
            backoff.reset()
            let reason: String
            do {
                defer { close(fd) }
                reason = try readUntilLost(fd, producer: producer, earlier: &earlier)
            }
            logger.warning("lost \(shown) (\(reason)); waiting for it to come back")
            lostAt = .now
            stats.update { $0.startWaiting(for: .device) }
            try producer.pause(for: backoff.next())
        }
    }

    /// Reads one connection to its end; returns why it ended. Rethrows `CancellationError` (the recording stopped).
    private func readUntilLost(_ fd: Int32, producer: ThreadedProducer, earlier: inout (bad: Int, times: Int)) throws
        -> String
    {
        var lines = 0
        var bad = 0
        var times = 0
        defer { earlier = (earlier.bad + bad, earlier.times + times) }
        let base = earlier
        let stats = stats
        do {
            try NMEAFileReader(path: path).read(
                descriptor: fd, { try producer.send($0) },
                progress: { s in
                    bad = s.badChecksum + s.unparsable
                    times = s.implausibleTimes
                    let arrived = s.lines > lines
                    lines = s.lines
                    stats.update {
                        $0.badSentences = base.bad + bad
                        $0.implausibleTimes = base.times + times
                        if arrived { $0.lastSentence = .now }
                    }
                },
                waitForInput: { try waitForInput(fd, producer: producer) })
            // A raw terminal's read(2) returns 0 only when the line hangs up.
            return "the line hung up"
        } catch NMEAFileError.readFailed(_, let message) {
            return message
        } catch let silence as DeviceSilence {
            return "it sent nothing for \(String(format: "%.1f", silence.seconds)) s"
        }
    }

    /// Returns once `fd` has input (or a hang-up or an error, which the read then reports); waits in slices so that a
    /// stop is seen within one. Throws `DeviceSilence` after `watchdog` without input, `CancellationError` once the
    /// recording stopped.
    private func waitForInput(_ fd: Int32, producer: ThreadedProducer) throws {
        let start = ContinuousClock.now
        let slice = Int32(Backoff.seconds(Self.pollSlice) * 1000)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, slice)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { return }  // let read(2) report what is wrong
            if producer.stopped { throw CancellationError() }
            if let watchdog, ContinuousClock.now - start >= watchdog {
                throw DeviceSilence(seconds: Backoff.seconds(watchdog))
            }
        }
    }
}

/// The device sent nothing for the watchdog's time.
struct DeviceSilence: Error {
    let seconds: Double
}

extension SourceError {
    /// The reason alone, for a message that names the path itself.
    var reason: String {
        switch self {
        case .cannotOpen(_, let reason): reason
        default: errorDescription ?? "\(self)"
        }
    }
}
