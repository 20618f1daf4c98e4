// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore

/// Finds sessions left open by a recorder that died (kill -9, power cut) and closes them at their last entry.
public enum Recovery {
    /// Closes open sessions when no recorder holds the database.
    /// - Parameters:
    ///   - store: the database to look in.
    ///   - lock: the recording lock, when the caller (a starting `record`) already holds it. Probing the lock from
    ///     the process that holds it would find it taken (flock locks per open file), so recovery would never run
    ///     there.
    /// - Returns: what was closed, with its new end, for telling the user; empty while a recorder holds the lock.
    /// - Throws: `StoreError` when the open sessions cannot be read or closed.
    @discardableResult
    public static func closeAbandonedSessions(in store: Store, holding lock: RecordingLock? = nil) throws -> [Session] {
        if lock == nil && RecordingLock.isHeld(database: store.path) { return [] }
        var closed: [Session] = []
        for var session in try store.openSessions() {
            session.end = try store.finishSessionAtLastEntry(session)
            closed.append(session)
        }
        return closed
    }
}
