// SPDX-License-Identifier: MIT
import Foundation
import GPSLogBundledRecording
import GPSLogGeocoding
import GPSLogModel
import GPSLogSampling
import GPSLogSources
import GPSLogStore
import GPSLogSystem
import GPSLogUpload
import Logging

/// How a recording ended.
public enum RecordingOutcome: Sendable, Equatable {
    /// The last session, with the totals kept while writing it, and how many sessions the run recorded (more than
    /// one after `--split`).
    case recorded(Session, entries: Int, marks: Int, distance: Double, sessions: Int)
    /// No fix ever arrived: no session was written.
    case noFix
}

/// The recording runtime: owns the lock, recovery, the source, the sampler (through the `SessionRecorder`), the
/// geocoder beside it, live sending and the control socket, from the first fix to the closed session; the
/// `SourceLoop` runs the source to its end.
public enum RecordingRuntime {
    /// Records until the source ends, SIGINT/SIGTERM, or `gpslog stop`.
    /// - Throws: `RecordingError` (already recording, a socket or a write that failed), `SourceError`, `StoreError`.
    public static func run(_ plan: RecordingPlan, logger: Logger) async throws -> RecordingOutcome {
        // A file-size limit (ulimit -f) must fail the write with EFBIG, which SQLite reports, not kill us.
        signal(SIGXFSZ, SIG_IGN)
        let path = plan.databasePath
        try Store.prepareFile(at: path)
        guard let lock = try RecordingLock(database: path) else {
            throw RecordingError.alreadyRecording(database: path, pid: RecordingLock.holderPID(database: path))
        }
        defer { withExtendedLifetime(lock) {} }
        try recover(path, holding: lock, logger: logger)

        let source = try makeSource(plan.source, watchdog: plan.watchdog, logger: logger)
        let threads = (recorder: StoreThread(), addresses: StoreThread(), sender: StoreThread())
        let geocoding = try plan.geocoding.flatMap {
            g -> (geocoder: any ReverseGeocoder, options: GeocodeWorker.Options)? in
            let made: GeocoderSpec.Made
            do {
                made = try g.provider.make(contact: g.contact)
            } catch PlacesError.notInstalled(let searched) where g.provider.isDefault {
                // A build without `make places` still records, and says how to get addresses (`gpslog geocode` fills
                // them in later). Any other provider, or a broken index, must work or stop the recorder.
                let error = PlacesError.notInstalled(searched: searched)
                logger.warning("recording without addresses: \(describeForPeople(error))")
                return nil
            }
            if let notice = made.notice { logger.notice("\(notice)") }
            var options = GeocodeWorker.Options()
            options.rate = try made.rate(requested: g.rate)
            return (made.geocoder, options)
        }
        // The recorder gives its rows what needs no request (cached answers, an offline provider) in its own commit.
        let recorder = try SessionRecorder(
            databasePath: path, naming: plan.naming, mode: plan.mode, policy: plan.policy, splits: plan.splits,
            stays: plan.stays, source: source, thread: threads.recorder, logger: logger, commitEvery: plan.commitEvery,
            geocoder: geocoding?.geocoder, geocodeOptions: geocoding?.options ?? GeocodeWorker.Options())
        await recorder.setTripSampling(plan.tripSampling)
        _ = await recorder.setTag(plan.tag)
        // A network provider is asked beside it, on a thread of its own, so recording never waits on the network.
        let addresses = geocoding.flatMap { g -> Task<Void, Never>? in
            guard g.geocoder.isNetwork else { return nil }
            let loop = AddressLoop(
                databasePath: path, geocoder: g.geocoder, options: g.options, recorder: recorder,
                thread: threads.addresses, logger: logger)
            // Each answer is written at once, with the rows of its cell (their Entries pages written again); what
            // the recorder commits after that finds it in the cache. A round every four commits leaves time for
            // the rows of a new cell to gather (see Benchmarks/README.md).
            let every = max(.seconds(2), plan.commitEvery * 4)
            return Task { await loop.run(every: every) }
        }
        let http = plan.sending.map {
            LiveSender(
                databasePath: path, destination: $0.destination, options: $0.options, interval: $0.interval,
                allowRemoteOff: $0.allowRemoteOff, trip: ($0.tripBatchSize, $0.tripLoggingMode), recorder: recorder,
                thread: threads.sender, logger: logger)
        }
        await http?.applyKept(explicit: plan.sending?.explicitOptions ?? [])
        let sender: (any LiveSending)? =
            try http
            ?? plan.mqtt.map {
                try LiveMQTTSender(
                    databasePath: path, destination: $0.destination, options: $0.options, interval: $0.interval,
                    recorder: recorder, thread: threads.sender, logger: logger)
            }
        let sendLoop = sender?.start()

        let session = try await SourceLoop(
            recorder: recorder, source: source, socketPath: ControlSocket.path(forDatabase: path), sender: sender,
            logger: logger
        ).run()
        addresses?.cancel()
        sendLoop?.cancel()
        _ = await addresses?.value
        if let sender, session != nil {
            let sent = await sender.finish()
            let passedOver =
                sent.skipped > 0
                ? ", \(sent.skipped) older points passed over (--logging-mode \(sent.loggingMode ?? "latest"))" : ""
            logger.info("sent \(sent.sent) points to \(sent.destination); \(sent.queued) waiting\(passedOver)")
        } else {
            await sender?.close()
        }
        let totals = await recorder.totals
        let sessions = await recorder.sessionIDs.count
        for thread in [threads.recorder, threads.addresses, threads.sender] { await thread.shutdown() }
        guard let session else { return .noFix }
        return .recorded(
            session, entries: totals.entries, marks: totals.marks, distance: totals.distance, sessions: sessions)
    }

    /// Closes the sessions a recorder that died (kill -9, power cut) left open, and says so.
    static func recover(_ path: String, holding lock: RecordingLock, logger: Logger) throws {
        let store = try Store(path: path)
        defer { store.close() }
        for session in try Recovery.closeAbandonedSessions(in: store, holding: lock) {
            logger.warning(
                "closed session '\(session.name)' (\(session.shortID)) left open by a recorder that stopped abruptly; it ends at its last entry, \(session.end?.iso8601() ?? "?")"
            )
        }
    }

    /// The source a spec names; `replay:sample` is the recording bundled with gpslog (unless a file is named so).
    static func makeSource(_ spec: SourceSpec, watchdog: Duration?, logger: Logger) throws -> any FixSource {
        switch spec {
        case .gpsd(let host, let port):
            return GPSDSource(host: host, port: port, watchdog: watchdog, logger: logger)
        case .nmea(let path, let baud):
            return NMEASource(path: path, baud: baud, watchdog: watchdog, logger: logger)
        case .replay(let path, let speed):
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
