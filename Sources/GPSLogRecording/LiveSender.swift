// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
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
    private let options: Uploader.Options
    private let recorder: Recorder
    private let logger: Logger
    private var inFlight: Task<SendingStatus, Never>?
    private var status: SendingStatus

    init(
        databasePath: String, destination: Destination, options: Uploader.Options, recorder: Recorder,
        thread: StoreThread, logger: Logger
    ) {
        self.thread = thread
        self.databasePath = databasePath
        self.destination = destination
        self.options = options
        self.recorder = recorder
        self.logger = logger
        status = SendingStatus(destination: destination.displayURL)
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    /// Sends what waits now; returns where sending stands afterwards.
    func send() async -> SendingStatus {
        if let inFlight { return await inFlight.value }
        let task = Task { await self.perform() }
        inFlight = task
        let result = await task.value
        inFlight = nil
        return result
    }

    /// Sessions of this run that a split ended and whose every point the server has confirmed.
    private var sentInFull: Set<String> = []

    private func perform() async -> SendingStatus {
        guard let session = await recorder.session else { return status }
        // A connection per send (every few seconds at most): the uploader is not Sendable, so it lives in this call.
        let store: Store
        do { store = try Store(path: databasePath) } catch {
            status.lastError = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            return status
        }
        defer { store.close() }
        let uploader = Uploader(store: store, destination: destination, options: options)
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
            status.lastError = nil
            if report.sent > 0 {
                logger.debug("sent \(report.sent) points in \(report.batches) batches to \(report.destination)")
            }
        } catch {
            let message = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            status.lastError = message
            status.queued = (try? uploader.queued(session: session)) ?? status.queued
            logger.warning("sending: \(message)")
        }
        await recorder.setSending(status)
        return status
    }

    /// Sends every `interval` until cancelled, then once more (briefly) so the end of the track goes too.
    nonisolated func start(every interval: Duration?) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval ?? .seconds(1))
                if Task.isCancelled { break }
                if interval != nil { _ = await self.send() } else { await self.refreshQueue() }
            }
        }
    }

    /// Updates the queue count without sending (send interval off).
    private func refreshQueue() async {
        guard let session = await recorder.session, let store = try? Store(path: databasePath) else { return }
        defer { store.close() }
        status.queued =
            (try? Uploader(store: store, destination: destination, options: options).queued(session: session))
            ?? status.queued
        await recorder.setSending(status)
    }

    /// The last send, after the recording ended: what the server has not confirmed waits for `gpslog upload`.
    func finish() async -> SendingStatus {
        let status = await send()
        if status.queued > 0 {
            logger.warning(
                "\(status.queued) points were not confirmed by \(destination.displayURL); `gpslog upload` with the same --url sends them"
            )
        }
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
