// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogSystem
import GPSLogUpload
import Logging

/// Live sending inside `record --send`: every send interval (and on `gpslog send-now`) it uploads what the server
/// has not confirmed of the session being recorded. The database is the queue: offline, points wait; when the
/// server answers again, they go in batches, oldest first; `gpslog upload` resumes the same queue after the
/// recording. One send at a time: a send-now during a send waits for it and reports it. It runs on a `StoreThread`
/// of its own: its store's reads and commits block, its HTTP waits do not.
actor LiveSender {
    private let thread: StoreThread
    private let databasePath: String
    private let destination: Destination
    /// Batch size and logging mode: a server's `set` changes them.
    private var options: Uploader.Options
    /// How often to send; nil: only on `send-now` and at the end. A server's `send_interval` changes it.
    private(set) var interval: Duration?
    /// Accept a server's `send_interval: off` and `tracking_mode: off` (`--allow-remote-off`).
    private let allowRemoteOff: Bool
    /// Overland's Trip Settings: the batch size and logging mode while a trip runs (nil: the main ones).
    private let trip: (batchSize: Int?, loggingMode: LoggingMode?)
    /// Keys a server sent that mean nothing here, said once each.
    private var saidNotApplicable: Set<String> = []
    /// The last send ended early at an answer with `set` (applied before the next batch).
    private var settingsArrived = false
    private let recorder: SessionRecorder
    private let logger: Logger
    /// One client for the recording's sends: kept-alive while the server answers, renewed after a failure.
    private let client = SendingClient()
    var inFlight: Task<SendingStatus, Never>?
    private var status: SendingStatus

    init(
        databasePath: String, destination: Destination, options: Uploader.Options, interval: Duration?,
        allowRemoteOff: Bool = false, trip: (batchSize: Int?, loggingMode: LoggingMode?) = (nil, nil),
        recorder: SessionRecorder, thread: StoreThread, logger: Logger
    ) {
        self.trip = trip
        self.thread = thread
        self.databasePath = databasePath
        self.destination = destination
        self.options = options
        self.interval = interval
        self.allowRemoteOff = allowRemoteOff
        self.recorder = recorder
        self.logger = logger
        status = SendingStatus(destination: destination.displayURL)
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    /// Sessions of this run that a split ended and whose every point the server has confirmed.
    private var sentInFull: Set<String> = []

    func perform() async -> SendingStatus {
        guard let session = await recorder.session else { return status }
        // A connection per send (every few seconds at most): the uploader is not Sendable, so it lives in this call.
        let store: Store
        do { store = try Store(path: databasePath) } catch {
            status.lastError = describeForPeople(error)
            return status
        }
        defer { store.close() }
        // While a trip runs, its sending settings over the main ones; they revert when it ends.
        var options = options
        if await recorder.tripMode != nil {
            options.batchSize = trip.batchSize ?? options.batchSize
            options.loggingMode = trip.loggingMode ?? options.loggingMode
        }
        let uploader = Uploader(store: store, destination: destination, options: options, client: client)
        do {
            // Sessions a split ended first: their last points go before the new session's.
            for id in await recorder.sessionIDs.dropLast() where !sentInFull.contains(id) {
                guard let earlier = try store.session(id: id) else { continue }
                if try await uploader.upload(session: earlier, isolation: self).queued == 0 { sentInFull.insert(id) }
            }
            let report = try await uploader.upload(session: session, isolation: self)
            status.sent = report.alreadySent + report.sent
            status.queued = report.queued
            status.lastSentAt = report.lastSentAt
            if status.lastError != nil { logger.info("sending works again: \(destination.displayURL) answers") }
            status.lastError = nil
            status.records += report.records
            status.skipped += report.skipped
            if report.sent > 0 || report.records > 0 {
                logger.debug(
                    "sent \(report.sent) points and \(report.records) records in \(report.batches) batches to \(report.destination)"
                )
            }
            settingsArrived = !report.settings.isEmpty
            if !report.settings.isEmpty {
                let kept = await apply(report.settings, from: "server \(destination.displayURL)")
                try store.saveServerSettings(
                    kept, destination: destination.progressKey,
                    at: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
            }
        } catch {
            let message = describeForPeople(error)
            // Once per failure, not once per send interval while the server stays away (`status` shows the queue).
            if message != status.lastError { logger.warning("sending: \(message.visible)") }
            status.lastError = message
            status.queued = (try? uploader.queued(session: session)) ?? status.queued
        }
        await recorder.setSending(status)
        return status
    }

    /// Sends every `interval` until cancelled (re-read at each look: a server may change it), then once more
    /// (briefly) so the end of the track goes too.
    nonisolated func start() -> Task<Void, Never> {
        Task {
            var last = ContinuousClock.now
            while !Task.isCancelled {
                let interval = await self.interval
                try? await Task.sleep(for: min(interval ?? .seconds(1), .milliseconds(250)))
                if Task.isCancelled { break }
                guard ContinuousClock.now - last >= interval ?? .seconds(1) else { continue }
                last = .now
                if interval != nil { _ = await self.send() } else { await self.refreshQueue() }
            }
        }
    }

    /// Applies the settings a server sent (`set`), or that were kept from the last run to this destination, and
    /// logs each change (never the token: `origin` names the destination without it).
    /// - Parameters:
    ///   - settings: the settings, as the server sent them.
    ///   - origin: who sent them, for the log: the destination without its token.
    ///   - explicit: `record` options given on the command line, which win over kept settings.
    /// - Returns: the settings applied, to keep for the next run (none refused, skipped, not applicable or overridden).
    @discardableResult
    func apply(_ settings: [ServerSetting], from origin: String, explicit: Set<String>? = nil) async
        -> [ServerSetting]
    {
        var kept: [ServerSetting] = []
        for setting in settings {
            // The key and value came from the server: escaped, so no answer can forge a log line.
            let said = "\(origin) set \(setting.path.visible) \(setting.value.visible)"
            switch RemoteChange.read(setting, allowRemoteOff: allowRemoteOff) {
            case .change(let change):
                if let explicit, explicit.contains(change.option) {
                    logger.notice("\(said): --\(change.option) given on the command line wins")
                    continue
                }
                let before: String?
                switch change {
                case .sendInterval(let d):
                    before = SettingText.duration(interval)
                    interval = d
                case .batchSize(let n):
                    before = String(options.batchSize)
                    options.batchSize = n
                case .loggingMode(let mode):
                    before = options.loggingMode.rawValue
                    options.loggingMode = mode
                default:
                    before = await recorder.apply(change)
                }
                logger.notice("\(said) (was \(before ?? "?"))")
                status.interval = interval.map(SettingText.duration)
                status.batchSize = options.batchSize
                status.loggingMode = options.loggingMode.rawValue
                kept.append(setting)
            case .refused(let reason):
                logger.warning("\(said): refused: \(reason.visible)")
            case .notApplicable(let reason):
                // Said once per key (at most a few hundred keys remembered: a server may send any).
                if saidNotApplicable.count < 256, saidNotApplicable.insert(setting.path).inserted {
                    logger.notice("\(said): not applied: \(reason.visible)")
                }
            case .invalid(let reason):
                logger.warning("\(said): skipped: \(reason.visible)")
            }
        }
        await recorder.setSending(status)
        return kept
    }

    /// At the start of a recording: applies what servers sent to this destination in earlier runs, below the
    /// options given on the command line.
    func applyKept(explicit: Set<String>) async {
        guard let store = try? Store(path: databasePath) else { return }
        defer { store.close() }
        let kept = (try? store.serverSettings(destination: destination.progressKey)) ?? []
        for (setting, time) in kept {
            await apply([setting], from: "kept from the last run (\(time.iso8601())):", explicit: explicit)
        }
        status.interval = interval.map(SettingText.duration)
        status.batchSize = options.batchSize
        status.loggingMode = options.loggingMode.rawValue
        await recorder.setSending(status)
    }

    /// Updates the queue count without sending (send interval off).
    private func refreshQueue() async {
        guard let session = await recorder.session, let store = try? Store(path: databasePath) else { return }
        defer { store.close() }
        status.queued =
            (try? Uploader(store: store, destination: destination, options: options, client: client).queued(
                session: session))
            ?? status.queued
        await recorder.setSending(status)
    }

    /// Lets go of the HTTP client when the run ends without a last send.
    func close() async { await client.shutdown() }

    /// The last send, after the recording ended: what the server has not confirmed waits for `gpslog upload`.
    func finish() async -> SendingStatus {
        // A send the loop began before the recording's last commit may still be under way; `send` would hand back
        // its answer, which lacks the last points (the end of the track, or under --logging-mode latest the newest
        // point): wait for it, then send again.
        if let inFlight { _ = await inFlight.value }
        var status = await send()
        // A `set` ends a send early so that it applies to the next batch: the rest goes now.
        while settingsArrived && status.queued > 0 && status.lastError == nil { status = await send() }
        if status.queued > 0 {
            logger.warning(
                "\(status.queued) points were not confirmed by \(destination.displayURL); `gpslog upload` with the same --url sends them"
            )
        }
        await client.shutdown()
        return status
    }
}

/// Live sending as Overland's tracker screen shows it: what waits, and when the last batch went.
public struct SendingStatus: Codable, Sendable, Equatable {
    /// The destination, without credentials.
    public var destination: String
    /// Track points not yet confirmed by the server (the queue is the database).
    public var queued: Int
    /// Track points the server confirmed for this session.
    public var sent: Int
    /// When the server confirmed the last batch (ISO 8601).
    public var lastSentAt: String?
    /// Why the last attempt failed, if it did (never holds the token).
    public var lastError: String?
    /// Records (pause, resume, visits) the server confirmed in this run.
    public var records = 0
    /// Points passed over by logging mode `latest` or `owntracks` in this run (only the newest goes).
    public var skipped = 0
    /// The send interval in force (`1s`, `30s`); nil: off.
    public var interval: String?
    /// The batch size in force.
    public var batchSize: Int?
    /// The logging mode in force: `all`, `latest` or `owntracks`.
    public var loggingMode: String?
    /// MQTT: connected to the broker now; nil over HTTP, which connects per batch.
    public var connected: Bool?

    /// A status for `destination` (shown without credentials) from its counts; the rest starts at zero or nil.
    public init(
        destination: String, queued: Int = 0, sent: Int = 0, lastSentAt: String? = nil, lastError: String? = nil
    ) {
        self.destination = destination
        self.queued = queued
        self.sent = sent
        self.lastSentAt = lastSentAt
        self.lastError = lastError
    }
}
