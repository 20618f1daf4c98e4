// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogPostgres
import GPSLogReceiver
import GPSLogStore

/// `serve --store postgres://`: the PostgreSQL store as one the receiver writes into and closes (the two modules do
/// not know each other; the command line joins them).
final class PostgresBackend: ReceiverBackend {
    let store: PostgresReceiverStore

    init(_ store: PostgresReceiverStore) { self.store = store }

    func close() { store.close() }

    func storeReceived(_ batches: [ReceivedBatch]) throws -> ReceivedOutcome { try store.storeReceived(batches) }

    func storeReceivedTransition(_ t: ReceivedTransition, device: String) throws -> ReceivedOutcome {
        try store.storeReceivedTransition(t, device: device)
    }

    func storeReceivedWaypoints(_ waypoints: [ReceivedWaypoint], device: String, at now: Timestamp) throws
        -> WaypointOutcome
    {
        try store.storeReceivedWaypoints(waypoints, device: device, at: now)
    }

    func storeReceivedCard(_ card: DeviceCard, device: String, at now: Timestamp) throws -> Bool {
        try store.storeReceivedCard(card, device: device, at: now)
    }

    func storeLastWill(connected: Timestamp, device: String, at now: Timestamp) throws -> Bool {
        try store.storeLastWill(connected: connected, device: device, at: now)
    }
}

/// A backend opened before the server starts (a wrong URL or password fails before listening), handed to the
/// receiver once. The receiver then uses it from its own thread only; this box is Sendable because the hand-over is
/// one locked take.
final class OpenedOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var backend: (any ReceiverBackend)?

    init(_ backend: any ReceiverBackend) { self.backend = backend }

    func take() throws -> any ReceiverBackend {
        try lock.withLock {
            guard let taken = backend else { throw CommandError.refused("the receiver opened its store twice") }
            backend = nil
            return taken
        }
    }
}
