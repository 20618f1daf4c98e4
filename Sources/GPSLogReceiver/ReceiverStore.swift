// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore

/// The receiver's one connection to the database. An actor on a thread of its own: requests arrive on many threads,
/// a SQLite connection serves one at a time, and each payload is one transaction.
actor ReceiverStore {
    /// SQLite today; any `ReceivedLocationStore` (a PostgreSQL backend) can stand here.
    private let store: any ReceivedLocationStore
    /// Each payload's transaction blocks (its commit, another process's lock): it runs here, not on the pool that
    /// serves HTTP.
    private let thread = StoreThread()

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    init(path: String) throws { store = try Store(path: path) }

    /// Ends the store's thread (when the server stops).
    func close() async { await thread.shutdown() }

    /// Stores an Overland batch: one session per device (`overland:DEVICE`), or per trip when the batch carries
    /// one. Locations of several devices in one batch go to their own sessions, all in one transaction.
    func storeOverland(_ payload: OverlandPayload) throws -> ReceivedOutcome {
        var byDevice: [String: [Entry]] = [:]
        for e in payload.entries { byDevice[e.deviceID ?? "overland", default: []].append(e) }
        let batches = byDevice.sorted(by: { $0.key < $1.key }).map { device, entries in
            var receiver = "overland:" + device
            var name = device
            if let start = payload.tripStart {
                receiver += " trip " + start.iso8601()
                name += " trip " + start.iso8601()
            }
            let first = entries.map(\.time).min()!
            return ReceivedBatch(
                receiver: receiver, name: name, start: min(first, payload.tripStart ?? first), mode: payload.mode,
                entries: entries)
        }
        return try store.storeReceived(batches)
    }

    /// Stores one OwnTracks location in the session of `owntracks:USER/DEVICE`.
    func storeOwnTracks(_ location: Entry, device: String) throws -> ReceivedOutcome {
        try store.storeReceived([
            ReceivedBatch(
                receiver: "owntracks:" + device, name: device, start: location.time, mode: nil, entries: [location])
        ])
    }
}
