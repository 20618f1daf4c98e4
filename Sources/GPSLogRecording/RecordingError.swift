// SPDX-License-Identifier: MIT
import Foundation

/// What can go wrong around a recording, said so the user knows what to do.
public enum RecordingError: LocalizedError, Equatable {
    /// Another recorder holds this database.
    case alreadyRecording(database: String, pid: Int32?)
    /// No recorder is running for this database.
    case notRecording(database: String)
    /// The recorder holds the socket but did not answer: it is stopped (SIGSTOP, Ctrl-Z), or it did not get on for
    /// a while (stuck).
    case notAnswering(database: String, pid: Int32?, seconds: Int64, stopped: Bool)
    /// The recorder closed the connection before it answered: it was killed or ended while the request was on its
    /// way, so whether the request took effect is not known.
    case endedBeforeAnswering(database: String)
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

    /// What went wrong, naming the database or file where there is one, and what to do, for people.
    public var errorDescription: String? {
        switch self {
        case .alreadyRecording(let database, let pid):
            return
                "a recording is already running on \(database)\(pid.map { " (pid \($0))" } ?? ""); stop it with `gpslog stop` or use another --db."
        case .notRecording(let database):
            return "no recording is running on \(database); start one with `gpslog record --name NAME`."
        case .notAnswering(let database, let pid, let seconds, let stopped):
            guard let pid else {
                return
                    "the recorder on \(database) did not answer within \(seconds) s: it may be stopped or stuck; see `ps -C gpslog -o pid,stat,args` (a T in STAT: resume it with `kill -CONT PID`)."
            }
            if stopped {
                return
                    "the recorder on \(database) (pid \(pid)) did not answer within \(seconds) s: it is stopped (Ctrl-Z or SIGSTOP). Resume it with `kill -CONT \(pid)` (or `fg` in its shell), and it then does what was asked."
            }
            return
                "the recorder on \(database) (pid \(pid)) did not answer within \(seconds) s: it is stuck. See `ps -o stat= -p \(pid)`: T means stopped; resume it with `kill -CONT \(pid)`. If it stays stuck, end it with `kill \(pid)`; what it committed is kept."
        case .endedBeforeAnswering(let database):
            return
                "the recorder on \(database) ended before it answered, so this request may not have been done; see `gpslog status --db \(database)`, and ask again once a recording runs."
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
