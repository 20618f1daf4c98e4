// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogGeocoding
import GPSLogSample
import GPSLogSampling
import GPSLogSources
import GPSLogStore
import GPSLogUpload
import Logging

extension GPSLog {
    /// Records a named session from a live or replayed source.
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a named session until Ctrl-C, SIGTERM or `gpslog stop`.",
            discussion: """
                Sources: gpsd://HOST:PORT (default gpsd://127.0.0.1:2947), nmea:PATH[?baud=N] (a serial device, a \
                file, or - for stdin), replay:PATH[?speed=N] (a recorded NMEA or GPX file at N times its own pace; \
                speed=0 as fast as possible; replay:sample is the recording bundled with gpslog). Entries are \
                committed at least once a second; `gpslog mark`, `status` and `stop` talk to the recorder from \
                another shell.
                """)

        @OptionGroup var global: GlobalOptions
        @Option(help: "Session name.") var name: String
        @Option(help: "Where fixes come from.") var source: String = "gpsd://127.0.0.1:2947"
        @Option(help: "One entry per interval (e.g. 1s, 5s, 1m); fixes inside it are dropped.") var interval: DurationOption = .init(argument: "1s")!
        @Option(help: "Drop fixes closer than this many metres to the last entry.") var minDistance: Double?
        @Option(help: "Drop fixes sooner than this after the last entry (e.g. 10s).") var minTime: DurationOption?
        @Option(help: "Drop fixes whose horizontal error is worse than this many metres.") var maxAccuracy: Double?
        @Option(help: "Degrees the heading must turn to write a heading-change entry.") var headingFilter: Double = 5
        @Option(help: "Radius in metres of \"the same place\" for instance counts.") var samePlace: Double = SamplingPolicy.defaultSamePlaceRadius
        @Option(help: ArgumentHelp("Trip mode.", valueName: TripMode.allCases.map(\.rawValue).joined(separator: "|"))) var mode: String?
        @Option(help: "Reverse-geocode entries while recording with this provider (see `gpslog geocode`), or off.")
        var geocode: String = GeocoderSpec.defaultProvider
        @Option(help: "Rate for the geocoder (1/s, 4/min, ...).") var geocodeRate: String?
        @Option(help: "Contact for the geocoder's User-Agent (required by the public Nominatim).") var contact: String?
        @Option(help: "Send the session live to this Overland-compatible URL (the database is the queue; see `gpslog upload`).")
        var send: String?
        @Option(help: "How often to send: 1s, 5s, 30s, 5m, 30m..., or off (only on `gpslog send-now` and at the end).")
        var sendInterval: String = "30s"
        @OptionGroup(title: "Live sending") var sending: SendingOptions
        @Flag(help: "Log every commit.") var verbose = false

        func validate() throws {
            if name.allSatisfy(\.isWhitespace) { throw ValidationError("--name must not be empty.") }
            if let mode, TripMode(rawValue: mode) == nil {
                throw ValidationError("--mode must be one of \(TripMode.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if headingFilter < 0 || headingFilter >= 180 { throw ValidationError("--heading-filter must be from 0 to 180 degrees.") }
            if let d = minDistance, d < 0 { throw ValidationError("--min-distance must not be negative.") }
            if let a = maxAccuracy, a <= 0 { throw ValidationError("--max-accuracy must be positive.") }
            do { _ = try SourceSpec.parse(source) } catch { throw ValidationError(error.localizedDescription) }
            if geocodeRate.map({ GeocodeRate($0) == nil }) == true { throw ValidationError("--geocode-rate must look like 1/s or 4/min.") }
            if sendInterval != "off", DurationOption(argument: sendInterval).map({ $0.milliseconds > 0 }) != true {
                throw ValidationError("--send-interval must be a duration such as 1s, 30s or 5m, or off.")
            }
            if let send { do { _ = try sending.destination(url: send) } catch { throw ValidationError(error.localizedDescription) } }
        }

        func run() async throws {
            let logger = LogSetup.makeStderrLogger(label: "gpslog.record", verbose: verbose)
            // A file-size limit (ulimit -f) must fail the write with EFBIG, which SQLite reports, not kill us.
            signal(SIGXFSZ, SIG_IGN)
            let dbPath = global.databasePath
            try Store.prepareFile(at: dbPath)
            guard let lock = try RecordingLock(database: dbPath) else {
                throw RecordingError.alreadyRecording(database: dbPath, pid: RecordingLock.holderPID(database: dbPath))
            }
            do {
                let store = try Store(path: dbPath)
                for session in try Recovery.closeAbandonedSessions(in: store, holding: lock) {
                    logger.warning("closed session '\(session.name)' (\(session.shortID)) left open by a recorder that stopped abruptly; it ends at its last entry, \(session.end?.iso8601() ?? "?")")
                }
                store.close()
            }
            let policy = SamplingPolicy(
                intervalMilliseconds: interval.milliseconds, minDistance: minDistance, minTimeMilliseconds: minTime?.milliseconds,
                maxAccuracy: maxAccuracy, samePlaceRadius: samePlace, headingFilter: headingFilter)
            let fixSource = try makeSource(logger: logger)
            let recorder = try Recorder(
                databasePath: dbPath, name: name, mode: mode.flatMap(TripMode.init(rawValue:)), policy: policy,
                source: fixSource, logger: logger)
            let addresses = try startGeocoding(database: dbPath, recorder: recorder, logger: logger)
            let sender = try send.map {
                LiveSender(databasePath: dbPath, destination: try sending.destination(url: $0), options: liveOptions, recorder: recorder, logger: logger)
            }
            let sendLoop = sender?.start(every: DurationOption(argument: sendInterval).map { .milliseconds($0.milliseconds) })
            var commands: [String: @Sendable (ControlRequest) async -> ControlResponse] = [:]
            if let sender {
                commands["send-now"] = { _ in
                    var status = await recorder.status()
                    status.sending = await sender.send()
                    return ControlResponse(ok: true, status: status)
                }
            }
            let session = try await RecordingRun(
                recorder: recorder, source: fixSource, socketPath: ControlSocket.path(forDatabase: dbPath), logger: logger,
                extraCommands: commands
            ).run()
            addresses?.cancel()
            sendLoop?.cancel()
            if let sender, session != nil {
                let sent = await sender.finish()
                logger.info("sent \(sent.sent) points to \(sent.destination); \(sent.queued) waiting")
            }
            withExtendedLifetime(lock) {}
            if let session {
                let totals = await recorder.totals
                print("Recorded '\(session.name)' (\(session.shortID)): \(totals.entries) entries, \(totals.marks) marks, \(Format.distance(totals.distance)).")
            } else {
                print("No fix arrived: no session was recorded.")
            }
        }

        /// Live sending retries less than `upload` does: a failed send waits for the next interval, not for backoff.
        private var liveOptions: Uploader.Options {
            var o = sending.uploaderOptions
            o.maxAttempts = min(o.maxAttempts, 3)
            o.maxRetryDelay = min(o.maxRetryDelay, 5)
            return o
        }

        /// Runs the geocoder beside the recorder on its own connection, every few seconds, on the session being
        /// recorded: it never delays recording, and what it misses (a pause, no network) the next run or
        /// `gpslog geocode` picks up, since the pending work is the entries without an address.
        private func startGeocoding(database: String, recorder: Recorder, logger: Logger) throws -> Task<Void, Never>? {
            guard geocode != "off" else { return nil }
            let made = try GeocoderSpec(geocode).make(contact: contact, client: .shared)
            if let notice = made.notice { logger.notice("\(notice)") }
            var options = GeocodeWorker.Options()
            options.rate = try made.rate(requested: geocodeRate.flatMap(GeocodeRate.init))
            let geocoder = made.geocoder
            return Task.detached {
                var total = GeocodeReport(provider: geocoder.cacheKey)
                var worker: GeocodeWorker?
                defer { worker?.store.close() }
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(2))
                    guard let session = await recorder.session else { continue }
                    do {
                        if worker == nil { worker = GeocodeWorker(store: try Store(path: database), geocoder: geocoder, options: options) }
                        let report = try await worker!.run(sessions: [session.id])
                        total.add(report)
                        total.cells = worker!.seenCells.count
                        await recorder.setAddresses(total)
                        if let blocked = report.blocked {
                            logger.error("geocoder \(geocoder.cacheKey) is blocked (\(blocked)); recording goes on without addresses")
                            return
                        }
                        if let until = report.pausedUntil.flatMap({ Timestamp(iso8601: $0) }) {
                            logger.warning("geocoder asked us to slow down; paused until \(until.iso8601())")
                            let wait = max(0, until.milliseconds - Int64(Date().timeIntervalSince1970 * 1000))
                            try? await Task.sleep(for: .milliseconds(wait))
                        }
                    } catch {
                        logger.warning("geocoding failed: \(error.localizedDescription); will retry")
                    }
                }
            }
        }

        private func makeSource(logger: Logger) throws -> any FixSource {
            switch try SourceSpec.parse(source) {
            case let .gpsd(host, port):
                return GPSDSource(host: host, port: port, logger: logger)
            case let .nmea(path, baud):
                return NMEASource(path: path, baud: baud)
            case let .replay(path, speed):
                if path == "sample" && !FileManager.default.fileExists(atPath: "sample") {
                    return ReplaySource(input: .nmeaText(Sample.nmea, name: "sample"), speed: speed)
                }
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw SourceError.cannotOpen(path: path, reason: "no such readable file")
                }
                return ReplaySource(input: .file(path), speed: speed)
            }
        }
    }
}
