// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore

/// The receiver's one connection to the database. An actor: requests arrive on many threads, a SQLite connection
/// serves one at a time, and each payload is one transaction.
actor ReceiverStore {
    private let store: Store

    init(path: String) throws { store = try Store(path: path) }

    struct Stored { var session: String; var stored: Int; var duplicates: Int }

    /// Stores an Overland batch: one session per device (`overland:DEVICE`), or per trip when the batch carries
    /// one. Locations of several devices in one batch go to their own sessions.
    func storeOverland(_ payload: OverlandPayload) throws -> Stored {
        var byDevice: [String: [Entry]] = [:]
        for e in payload.entries { byDevice[e.deviceID ?? "overland", default: []].append(e) }
        return try store.write {
            var result = Stored(session: "", stored: 0, duplicates: 0)
            for (device, entries) in byDevice.sorted(by: { $0.key < $1.key }) {
                var receiver = "overland:" + device
                var name = device
                if let start = payload.tripStart {
                    receiver += " trip " + start.iso8601()
                    name += " trip " + start.iso8601()
                }
                let first = entries.map(\.time).min()!
                let r = try append(entries, receiver: receiver, name: name, start: min(first, payload.tripStart ?? first), mode: payload.mode)
                result = Stored(session: r.session, stored: result.stored + r.stored, duplicates: result.duplicates + r.duplicates)
            }
            return result
        }
    }

    /// Stores one OwnTracks location in the session of `owntracks:USER/DEVICE`.
    func storeOwnTracks(_ location: Entry, device: String) throws -> Stored {
        try store.write {
            try append([location], receiver: "owntracks:" + device, name: device, start: location.time, mode: nil)
        }
    }

    /// Inside a transaction.
    private func append(_ entries: [Entry], receiver: String, name: String, start: Timestamp, mode: TripMode?) throws -> Stored {
        let session = try store.receiverSession(receiver, name: name, start: start, mode: mode)
        var fresh: [Entry] = []
        var seen = Set<Int64>()
        var rng = SystemRandomNumberGenerator()
        for var e in entries.sorted(by: { $0.time < $1.time }) {
            guard seen.insert(e.time.milliseconds).inserted, try !store.hasEntry(session: session.id, at: e.time) else { continue }
            e.id = Identifier.uuidV7(time: e.time, using: &rng)
            fresh.append(e)
        }
        _ = try store.appendInTransaction(fresh, to: session.id)
        try store.fitSessionToEntries(session.id)
        return Stored(session: session.name, stored: fresh.count, duplicates: entries.count - fresh.count)
    }
}
