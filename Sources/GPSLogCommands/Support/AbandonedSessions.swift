// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogStore

/// Sessions left open by a recorder that died (kill -9, a power cut, before or after its first commit): `sessions`
/// and `show` close them at their last entry, and never call one a recording.
enum AbandonedSessions {
    /// Closes them when no recorder holds the database, with a note on stderr for each. A database that cannot be
    /// written (a read-only mount) keeps them open; `isRecording` still says they are not recordings.
    static func close(in store: Store) {
        guard let closed = try? Recovery.closeAbandonedSessions(in: store) else { return }
        for session in closed {
            FileHandle.standardError.write(
                Data(
                    "note: closed session '\(session.name.visible)' (\(session.shortID)), left open by a recorder that stopped abruptly, at its last entry (\(session.end.map(Format.time) ?? "?")).\n"
                        .utf8))
        }
    }

    /// Whether `session` is being recorded now: open, and a recorder holds its database's lock.
    static func isRecording(_ session: Session, store: Store) -> Bool {
        session.end == nil && RecordingLock.isHeld(database: store.path)
    }

    /// What `sessions` and `show` say instead of an end for a session open with no recorder (one left open that
    /// could not be closed).
    static let unfinished = "unfinished (its recorder stopped abruptly)"
}
