// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// One recording per database: an exclusive `flock` on `<database>.lock`, held for the recorder's lifetime.
///
/// The kernel releases the lock when the process dies, even by kill -9, so a crashed recorder never blocks the
/// next one, and "is a recorder running?" is answered by trying the lock.
public final class RecordingLock {
    private let fd: Int32
    public let path: String

    /// The lock file of a database.
    public static func path(forDatabase db: String) -> String { db + ".lock" }

    /// Takes the lock, or returns nil when another process holds it.
    public init?(database: String) throws {
        let path = RecordingLock.path(forDatabase: database)
        self.path = path
        do {
            fd = try systemCall { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        } catch {
            throw RecordingError.cannotLock(path: path, reason: error.reason)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return nil
        }
        // The pid is informational (for the error a second recorder prints); the lock itself is the flock.
        _ = ftruncate(fd, 0)
        let text = "\(getpid())\n"
        _ = text.withCString { write(fd, $0, strlen($0)) }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// True when a recorder holds the database's lock now.
    public static func isHeld(database: String) -> Bool {
        let path = RecordingLock.path(forDatabase: database)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }

    /// The pid written by the holder, when readable.
    public static func holderPID(database: String) -> Int32? {
        guard let text = try? String(contentsOfFile: RecordingLock.path(forDatabase: database), encoding: .utf8) else {
            return nil
        }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

@available(*, unavailable)
extension RecordingLock: Sendable {}
