// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGeocoding
import GPSLogModel
import GPSLogStore
import GPSLogSystem
import Logging

/// The geocoder beside a recording with a network provider: every few commits it asks for the addresses the recorder
/// could not give its rows (`ReadyAddresses`: cells not in the cache yet), on its own connection and its own thread,
/// so recording never waits on the network. What it misses (a pause, no network) the next round or `gpslog geocode`
/// picks up: the pending work is the entries without an address.
actor AddressLoop {
    private let thread: StoreThread
    private let databasePath: String
    private let geocoder: any ReverseGeocoder
    private let options: GeocodeWorker.Options
    private let recorder: SessionRecorder
    private let logger: Logger
    private var worker: GeocodeWorker?
    /// The worker's connection, closed when the loop ends (the worker sees only its `AddressStore` side).
    private var store: Store?

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    init(
        databasePath: String, geocoder: any ReverseGeocoder, options: GeocodeWorker.Options, recorder: SessionRecorder,
        thread: StoreThread,
        logger: Logger
    ) {
        self.thread = thread
        self.databasePath = databasePath
        self.geocoder = geocoder
        self.options = options
        self.recorder = recorder
        self.logger = logger
    }

    /// Runs until cancelled, or until the provider blocks us (HTTP 403: asking again would not help).
    func run(every interval: Duration = .seconds(2)) async {
        var total = GeocodeReport(provider: geocoder.cacheKey)
        defer { store?.close() }
        // The first round soon after the start (status shows addresses early), then one every `interval`.
        var wait = min(interval, .seconds(2))
        while !Task.isCancelled {
            try? await Task.sleep(for: wait)
            wait = interval
            // The current session, and the one a split ended last (its newest entries may still want addresses);
            // `gpslog geocode` fills in whatever older sessions a long pause left.
            let sessions = await recorder.sessionIDs.suffix(2)
            guard !sessions.isEmpty else { continue }
            do {
                if worker == nil {
                    let opened = try Store(path: databasePath)
                    store = opened
                    worker = GeocodeWorker(store: opened, geocoder: geocoder, options: options)
                }
                let report = try await worker!.run(sessions: Array(sessions))
                total.add(report)
                total.cells = worker!.seenCells.count
                await recorder.setAddresses(total)
                if let blocked = report.blocked {
                    logger.error(
                        "geocoder \(geocoder.cacheKey) is blocked (\(blocked)); recording goes on without addresses")
                    return
                }
                if let until = report.pausedUntil.flatMap({ Timestamp(iso8601: $0) }) {
                    logger.warning("geocoder asked us to slow down; paused until \(until.iso8601())")
                    let wait = max(0, until.milliseconds - Int64(Date().timeIntervalSince1970 * 1000))
                    try? await Task.sleep(for: .milliseconds(wait))
                }
            } catch is CancellationError {
                break  // the recording ended while the worker waited for its next slot
            } catch {
                logger.warning("geocoding failed: \(describeForPeople(error)); will retry")
            }
        }
    }
}
