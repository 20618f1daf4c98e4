// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore

/// A database the receiver writes into and closes when it stops: SQLite's `Store`, or PostgreSQL's
/// (`serve --store postgres://`). Its calls block; the receiver makes them on a thread of their own.
public protocol ReceiverBackend: ReceivedMessageStore {
    /// Closes the connection (the receiver stopped).
    func close()
}

extension Store: ReceiverBackend {}

/// The receiver's one connection to the database. An actor on a thread of its own: requests arrive on many threads,
/// a connection serves one at a time, and each payload is one transaction.
actor ReceiverStore {
    /// SQLite's `Store`, or a PostgreSQL backend.
    private let store: any ReceiverBackend
    /// Each payload's transaction blocks (its commit, another process's lock): it runs here, not on the pool that
    /// serves HTTP.
    private let thread = StoreThread()

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    init(store: any ReceiverBackend) { self.store = store }

    /// Closes the store, then ends its thread (when the server stops).
    func close() async {
        store.close()
        await thread.shutdown()
    }

    /// Stores an Overland batch: one session per device (`overland:DEVICE`), or per trip when the batch carries
    /// one. Locations of several devices in one batch go to their own sessions, all in one transaction. Visit
    /// records go to the device's session's visits; other records (pause, resume, trips) are not locations and
    /// are not stored. `owner`: all of it goes to that device (`USER/DEVICE`, a device token's), whatever it names.
    /// `namingRows`: the outcome's `rows` name each location's row, in the batch's order (Dawarich's answer).
    func storeOverland(_ payload: OverlandPayload, as owner: String? = nil, namingRows: Bool = false) throws
        -> ReceivedOutcome
    {
        var byDevice: [String: (entries: [Entry], visits: [Visit])] = [:]
        for e in payload.entries { byDevice[owner ?? e.deviceID ?? "overland", default: ([], [])].entries.append(e) }
        for (device, visit) in payload.visits {
            byDevice[owner ?? device ?? "overland", default: ([], [])].visits.append(visit)
        }
        let batches = byDevice.sorted(by: { $0.key < $1.key }).map { device, received in
            var receiver = "overland:" + device
            var name = device
            if let start = payload.tripStart {
                receiver += " trip " + start.iso8601()
                name += " trip " + start.iso8601()
            }
            let first = (received.entries.map(\.time) + received.visits.map(\.arrival)).min()!
            var batch = ReceivedBatch(
                receiver: receiver, name: name, start: min(first, payload.tripStart ?? first), mode: payload.mode,
                entries: received.entries)
            batch.visits = received.visits
            batch.namesRows = namingRows
            return batch
        }
        var outcome = try store.storeReceived(batches)
        if namingRows {
            // Back into the payload's order: the batches went device by device (in `byDevice`'s sorted order),
            // each in its locations' order.
            var rows: [String: ArraySlice<Int64?>] = [:]
            var offset = 0
            for device in byDevice.keys.sorted() {
                let n = byDevice[device]!.entries.count
                rows[device] = outcome.rows.count >= offset + n ? outcome.rows[offset..<offset + n] : []
                offset += n
            }
            outcome.rows = payload.entries.map { rows[owner ?? $0.deviceID ?? "overland"]?.popFirst() ?? nil }
        }
        return outcome
    }

    /// Stores one OwnTracks message of `device` (`USER/DEVICE`), and says what it did, for the log: nil for a type
    /// that is not stored (status, cmd, steps...). What the device sent is escaped in the words.
    func storeOwnTracks(_ message: OwnTracksReceived, device: String) throws -> String? {
        let now = Timestamp(seconds: Date().timeIntervalSince1970)
        let again = { (stored: Bool) in stored ? "" : " (already there)" }
        switch message {
        case .location(let location):
            let stored = try storeOwnTracks(location, device: device)
            return
                "stored \(stored.stored) OwnTracks location in '\(stored.session.visible)'\(again(stored.stored > 0))"
        case .transition(let t):
            let stored = try store.storeReceivedTransition(t, device: device)
            let region = (t.regionName ?? t.regionID ?? "").visible
            return
                "stored an OwnTracks transition (\(t.event.rawValue) '\(region)') in '\(stored.session.visible)'\(again(stored.stored > 0))"
        case .waypoints(let waypoints):
            let stored = try store.storeReceivedWaypoints(waypoints, device: device, at: now)
            return
                "stored \(stored.stored) of \(waypoints.count) OwnTracks waypoints of '\(device.visible)'\(again(stored.stored > 0))"
        case .lastWill(let connected):
            let stored = try store.storeLastWill(connected: connected, device: device, at: now)
            return
                "'\(device.visible)' lost its connection (lwt of the connection made \(connected.iso8601()))\(again(stored))"
        case .card(let card):
            let stored = try store.storeReceivedCard(card, device: device, at: now)
            return "stored the card of '\(device.visible)' ('\((card.name ?? "").visible)')\(again(stored))"
        case .other:
            return nil
        }
    }

    /// Stores one osmand-protocol location (Traccar Client, OsmAnd, GPSLogger) in the session of `osmand:DEVICE`.
    func storeOsmAnd(_ location: Entry, device: String) throws -> ReceivedOutcome {
        try store.storeReceived([
            ReceivedBatch(
                receiver: "osmand:" + device, name: device, start: location.time, mode: nil, entries: [location])
        ])
    }

    /// The SQLite store, for the Dawarich-compatible reads; nil with PostgreSQL (`serve --store postgres://`).
    var readable: Store? { store as? Store }

    /// One page of points (see `Store.pointPage`; `owner`: one user's), read on the store's thread between two
    /// payloads.
    func pointPage(from: Timestamp?, to: Timestamp?, newestFirst: Bool, page: Int, perPage: Int, owner: String?)
        throws -> PointPage?
    {
        try readable?.pointPage(
            from: from, to: to, newestFirst: newestFirst, page: page, perPage: perPage, owner: owner)
    }

    /// The totals of every track, or of one user's (see `Store.pointTotals`); nil with PostgreSQL.
    func pointTotals(owner: String?) throws -> PointTotals? { try readable?.pointTotals(owner: owner) }

    /// Stores one OwnTracks location in the session of `owntracks:USER/DEVICE`.
    func storeOwnTracks(_ location: Entry, device: String) throws -> ReceivedOutcome {
        try store.storeReceived([
            ReceivedBatch(
                receiver: "owntracks:" + device, name: device, start: location.time, mode: nil, entries: [location])
        ])
    }
}
