// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogSystem
import GPSLogUpload
import Logging

/// The sending side of a recording (`record --send`): Overland or OwnTracks batches over HTTP (`LiveSender`), or
/// OwnTracks messages over MQTT (`LiveMQTTSender`). `gpslog send-now` calls `send`.
protocol LiveSending: Actor {
    /// The send under way, which a `send` meanwhile waits for instead of starting another.
    var inFlight: Task<SendingStatus, Never>? { get set }
    /// One send: what waits now goes; returns where sending stands afterwards.
    func perform() async -> SendingStatus
    /// Sends at the interval until cancelled.
    nonisolated func start() -> Task<Void, Never>
    /// The last send, after the recording ended.
    func finish() async -> SendingStatus
    /// Lets go of what the sender holds (a connection), when the run ends without a last send.
    func close() async
}

extension LiveSending {
    /// Sends what waits now, one send at a time: a `send-now` during a send waits for it and reports it.
    func send() async -> SendingStatus {
        if let inFlight { return await inFlight.value }
        let task = Task { await self.perform() }
        inFlight = task
        let result = await task.value
        inFlight = nil
        return result
    }
}

extension LiveSender: LiveSending {}

/// Live publishing inside `record --send mqtt://`, as an OwnTracks app publishes: one connection kept open (its last
/// will set, its card published at each connection, reconnected by its client when the broker goes away), the
/// regions published once, and at each look (every second by default) what the recorder committed since, in
/// batches confirmed by the broker. The database is the queue: while the broker is away nothing is published and
/// nothing is lost; `gpslog upload --url mqtt://` resumes the same queue after the recording. It runs on a
/// `StoreThread` of its own, with its own connection to the database.
actor LiveMQTTSender: LiveSending {
    private let thread: StoreThread
    private let databasePath: String
    private let link: MQTTLink
    private let options: MQTTPublisher.Options
    private let interval: Duration?
    private let recorder: SessionRecorder
    private let logger: Logger
    private var store: Store?
    var inFlight: Task<SendingStatus, Never>?
    private var status: SendingStatus
    private var waypointsPublished = false
    /// Sessions of this run that a split ended and whose every message the broker has confirmed.
    private var sentInFull: Set<String> = []

    /// Sets the connection up (a TLS file that cannot be read fails here, before recording starts).
    init(
        databasePath: String, destination: MQTTDestination, options: MQTTPublisher.Options, interval: Duration?,
        recorder: SessionRecorder, thread: StoreThread, logger: Logger
    ) throws {
        let broker = destination.displayURL
        link = try MQTTLink(destination: destination) { event in
            switch event {
            case .connected: logger.info("connected to the MQTT broker \(broker)")
            case .failed(let failure):
                // Tried again after 1 s doubling to 30 s; each kind of failure said once, then at debug level.
                let line = "the MQTT broker \(broker) \(failure.summary.visible); retrying in \(failure.retryText)"
                if failure.isRepeat { logger.debug("\(line)") } else { logger.warning("\(line)") }
            case .lost: logger.warning("lost the MQTT broker \(broker); what is recorded waits in the database")
            }
        }
        self.thread = thread
        self.databasePath = databasePath
        self.options = options
        self.interval = interval
        self.recorder = recorder
        self.logger = logger
        status = SendingStatus(destination: broker)
        status.connected = false
        status.interval = interval.map(SettingText.duration)
        try link.start()
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    func perform() async -> SendingStatus {
        defer { status.connected = link.isConnected }
        guard let session = await recorder.session else { return status }
        let publisher: MQTTPublisher
        do {
            if store == nil { store = try Store(path: databasePath) }
            publisher = MQTTPublisher(store: store!, link: link, options: options)
        } catch {
            status.lastError = describeForPeople(error)
            return status
        }
        do {
            guard link.isConnected else {
                throw MQTTSendError.notConnected(broker: link.destination.displayURL, reason: link.lastFailure)
            }
            if !waypointsPublished {
                let regions = try store!.regions()
                if !regions.isEmpty { try await publisher.publishWaypoints(regions) }
                waypointsPublished = true
            }
            // Sessions a split ended first: their last messages go before the new session's.
            for id in await recorder.sessionIDs.dropLast() where !sentInFull.contains(id) {
                guard let earlier = try store!.session(id: id) else { continue }
                if try await publisher.publish(session: earlier).queued == 0 { sentInFull.insert(id) }
            }
            let report = try await publisher.publish(session: session)
            status.sent = report.alreadySent + report.sent
            status.queued = report.queued
            status.lastSentAt = report.lastSentAt
            status.records += report.records
            status.lastError = nil
            if report.sent > 0 || report.records > 0 {
                logger.debug(
                    "published \(report.sent) locations and \(report.records) transitions to \(report.destination)")
            }
        } catch {
            status.lastError = describeForPeople(error)
            status.queued = (try? publisher.queued(session: session)) ?? status.queued
        }
        status.connected = link.isConnected
        await recorder.setSending(status)
        return status
    }

    /// Looks every `interval` until cancelled; with none (`--send-interval off`), only `send-now` and the end
    /// publish.
    nonisolated func start() -> Task<Void, Never> {
        Task {
            guard let every = self.interval else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: every)
                if Task.isCancelled { break }
                _ = await self.send()
            }
        }
    }

    /// The last publish, then a clean DISCONNECT (no last will: the recorder did not vanish, it stopped). A broker
    /// away at the end leaves the rest for `gpslog upload --url mqtt://`.
    func finish() async -> SendingStatus {
        // A broker reconnecting right now gets a moment (woken as soon as the connection is made).
        _ = await link.waitUntilConnected(timeout: .seconds(3))
        // A send the loop began may have counted before the last commit: it ends first, then one more goes.
        if let inFlight { _ = await inFlight.value }
        let status = await perform()
        close()
        if status.queued > 0 {
            logger.warning(
                "\(status.queued) locations were not confirmed by \(status.destination); `gpslog upload` with --url and --device-id the same sends them"
            )
        }
        return status
    }

    /// A clean DISCONNECT (no last will) and the database let go.
    func close() {
        link.close()
        store?.close()
        store = nil
    }
}
