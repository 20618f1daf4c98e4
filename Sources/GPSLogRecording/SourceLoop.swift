// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
import GPSLogModel
import GPSLogSources
import GPSLogStore
import GPSLogSystem
import Logging

/// The source loop: runs a recording to its end. Consumes the source, commits every second, serves the control
/// socket, shows a one-line status on a terminal, and stops cleanly on SIGINT, SIGTERM, SIGHUP or `gpslog stop`.
struct SourceLoop {
    let recorder: SessionRecorder
    let source: any FixSource
    let socketPath: String
    /// Live sending, which `send-now` drives; nil when off.
    let sender: (any LiveSending)?
    let logger: Logger

    /// Records until the source ends or a stop is asked for. Returns the finished session (nil if no fix came).
    func run() async throws -> GPSLogModel.Session? {
        let recorder = recorder
        let source = source
        let logger = logger
        let sender = sender
        let consumer = Task {
            for try await batch in source.events() {
                try await recorder.handle(batch)
            }
        }
        let stopper = Stopper(consumer: consumer)
        let server = try await ControlServer.start(path: socketPath, logger: logger) { request in
            await Self.answer(request, recorder: recorder, sender: sender, stopper: stopper, logger: logger)
                .withSourceState(of: source)
        }
        // SIGHUP (the SSH session or terminal that started the recorder went away) ends it as SIGTERM does: what
        // waits for its commit is committed and the session closed, not lost with a default-action death. Under
        // nohup, which ignores SIGHUP so that the recorder outlives its terminal, it stays ignored.
        let stopping =
            [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] + (Self.isIgnored(SIGHUP) ? [] : [(SIGHUP, "SIGHUP")])
        let signals = stopping.map { signo, name -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            s.setEventHandler {
                logger.info("\(name): finishing the session")
                stopper.stop()
            }
            s.resume()
            return s
        }
        let showStatus = isatty(STDERR_FILENO) == 1
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                do {
                    try await recorder.tick()
                } catch {
                    logger.error("cannot commit: \(describeForPeople(error))")
                    stopper.fail(error)
                }
                if showStatus { StatusLine.draw(await recorder.status().withSourceState(of: source)) }
            }
        }
        logger.info("listening for mark/status/stop on \(socketPath)")
        // systemd Type=notify (READY, WATCHDOG, STATUS); nil outside systemd. See RecordingNotifications.swift.
        let notifications = RecordingNotifications.start(recorder: recorder, logger: logger)
        var failure: Error?
        do {
            try await consumer.value
        } catch is CancellationError {
        } catch {
            failure = error
        }
        ticker.cancel()
        notifications?.cancel()
        await notifications?.value  // STOPPING=1 goes out before the session is finished
        signals.forEach { $0.cancel() }
        await server.close()
        if showStatus { StatusLine.clear() }
        do {
            if let error = failure ?? stopper.failure { throw error }
            return try await recorder.finish()
        } catch {
            // A failed write (disk full, read-only file): try once more to close the session, but report the cause.
            let reason: String
            switch error {
            case StoreError.failed(_, let message): reason = message
            case let e as StoreError: reason = describeForPeople(e)
            default: throw error
            }
            _ = try? await recorder.finish()
            throw RecordingError.cannotWrite(
                database: await recorder.databasePath, reason: reason, committed: await recorder.committedEntries)
        }
    }
}

extension SourceLoop {
    /// True when whoever started the recorder set `signo` to be ignored (nohup does so for SIGHUP).
    static func isIgnored(_ signo: Int32) -> Bool {
        let previous = signal(signo, SIG_IGN)
        signal(signo, previous)
        return unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// The answer to one control request.
    static func answer(
        _ request: ControlRequest, recorder: SessionRecorder, sender: (any LiveSending)?, stopper: Stopper,
        logger: Logger
    ) async -> ControlResponse {
        switch request {
        case .mark(let label, let poi):
            do {
                return ControlResponse(ok: true, mark: try await recorder.mark(label: label, poi: poi))
            } catch {
                return ControlResponse(ok: false, error: describeForPeople(error))
            }
        case .status:
            return ControlResponse(ok: true, status: await recorder.status())
        case .stop:
            logger.info("stop requested through the control socket")
            stopper.stop()
            return ControlResponse(ok: true, status: await recorder.status())
        case .sendNow:
            guard let sender else {
                return ControlResponse(ok: false, error: "the recorder is not sending: start it with --send URL")
            }
            var status = await recorder.status()
            status.sending = await sender.send()
            return ControlResponse(ok: true, status: status)
        case .monitoring(let mode):
            return await answering {
                _ = try await recorder.setMonitoring(mode)
                return await recorder.status()
            }
        case .tripStart(let mode, let name):
            return await answering {
                guard let mode else { return try await recorder.startTrip(mode: nil, name: name) }
                guard let tripMode = TripMode(rawValue: mode) else {
                    throw RecordingError.recorder(
                        "'\(mode.visible)' is not a trip mode: use \(TripMode.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                return try await recorder.startTrip(mode: tripMode, name: name)
            }
        case .tripStop:
            return await answering { try await recorder.stopTrip() }
        case .tag(let tag):
            _ = await recorder.setTag(tag)
            return ControlResponse(ok: true, status: await recorder.status())
        }
    }

    /// The status `body` returns as the answer, or its error's words.
    private static func answering(_ body: () async throws -> RecorderStatus) async -> ControlResponse {
        do {
            return ControlResponse(ok: true, status: try await body())
        } catch {
            return ControlResponse(ok: false, error: describeForPeople(error))
        }
    }
}

/// Stops the source loop from a signal handler or a control request.
final class Stopper: @unchecked Sendable {
    // @unchecked: `failure` is guarded by `lock`; `consumer` is a Task handle, which is Sendable.
    private let lock = NSLock()
    private let consumer: Task<Void, Error>
    private var storedFailure: Error?

    init(consumer: Task<Void, Error>) { self.consumer = consumer }

    func stop() { consumer.cancel() }

    func fail(_ error: Error) {
        lock.withLock { if storedFailure == nil { storedFailure = error } }
        consumer.cancel()
    }

    var failure: Error? { lock.withLock { storedFailure } }
}

/// The one-line live status on a terminal (stderr), redrawn every second.
enum StatusLine {
    static func draw(_ s: RecorderStatus) {
        var parts: [String] = []
        if let age = s.lastFixAgeSeconds {
            parts.append(String(format: "fix %.0fs ago", age))
        } else {
            parts.append(
                s.connected
                    ? "waiting for a fix" : s.sourceState?.waitingFor.map { "waiting for the \($0)" } ?? "connecting")
        }
        if let lat = s.latitude, let lon = s.longitude { parts.append(String(format: "%.6f,%.6f", lat, lon)) }
        if let acc = s.horizontalAccuracy { parts.append(String(format: "±%.0f m", acc)) }
        if let v = s.speed { parts.append(String(format: "%.1f km/h", v * 3.6)) }
        parts.append("\(s.entries) entries")
        parts.append("\(s.marks) marks")
        if s.badSentences > 0 { parts.append("\(s.badSentences) bad") }
        write("\r\u{1B}[K" + parts.joined(separator: "  "))
    }

    static func clear() { write("\r\u{1B}[K") }

    /// Writes to stderr ignoring failures: a terminal that hung up (the SSH session dropped) answers EIO, and the
    /// recorder must still finish its session rather than trap in FileHandle.
    private static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }
}
