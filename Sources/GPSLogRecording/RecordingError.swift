// SPDX-License-Identifier: MIT
import Foundation

/// What can go wrong around a recording, said so the user knows what to do.
public enum RecordingError: LocalizedError, Equatable {
    /// Another recorder holds this database.
    case alreadyRecording(database: String, pid: Int32?)
    /// No recorder is running for this database.
    case notRecording(database: String)
    /// The lock file cannot be created.
    case cannotLock(path: String, reason: String)
    /// The control socket cannot be created or reached.
    case socket(path: String, reason: String)
    /// The recorder answered with an error.
    case recorder(String)
    /// The source option is not understood.
    case badSource(String)
    /// The database refused a write (disk full, read-only): the recording stopped; what was committed is kept.
    case cannotWrite(database: String, reason: String, committed: Int)

    public var errorDescription: String? {
        switch self {
        case .alreadyRecording(let database, let pid):
            return
                "a recording is already running on \(database)\(pid.map { " (pid \($0))" } ?? ""); stop it with `gpslog stop` or use another --db."
        case .notRecording(let database):
            return "no recording is running on \(database); start one with `gpslog record --name NAME`."
        case .cannotLock(let path, let reason):
            return "cannot create the lock file \(path): \(reason)."
        case .socket(let path, let reason):
            return "control socket \(path): \(reason)."
        case .recorder(let message):
            return message
        case .badSource(let message):
            return message
        case .cannotWrite(let database, let reason, let committed):
            return
                "cannot write to \(database): \(reason). The recording stopped; the \(committed) entries committed before are intact. Free some space or make the database writable, then record again."

        }
    }
}
