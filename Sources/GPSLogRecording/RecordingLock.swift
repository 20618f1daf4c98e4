// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// One recording per database: an exclusive `flock` on `<database>.lock`, held for the recorder's lifetime.
///
/// The kernel releases the lock when the process dies, even by kill -9, so a crashed recorder never blocks the
/// next one, and "is a recorder running?" is answered by trying the lock. The lock file sits beside the database's
/// real path (`realPath(of:)`), so a symlink or another spelling of the path finds the same lock.
public final class RecordingLock {
    private let fd: Int32
    /// The lock file's path: `<database>.lock` beside the database's real path.
    public let path: String

    /// The lock file of a database, beside its real path.
    public static func path(forDatabase db: String) -> String { realPath(of: db) + ".lock" }

    /// The database file's real path, symlinks, `.` and `..` resolved (realpath(3)): what the lock and the control
    /// socket are keyed on, so that `--db link.sqlite` and `--db r.sqlite` are one database. A file that does not
    /// exist yet is its folder's real path and its name.
    public static func realPath(of db: String) -> String {
        if let resolved = resolved(db) { return resolved }
        let url = URL(fileURLWithPath: db).standardizedFileURL
        guard let folder = resolved(url.deletingLastPathComponent().path) else { return url.path }
        return (folder as NSString).appendingPathComponent(url.lastPathComponent)
    }

    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

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
