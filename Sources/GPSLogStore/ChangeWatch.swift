// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite

/// Tells whether anyone committed to the database since the last look: SQLite's own `PRAGMA data_version`, read on
/// a connection kept open for that alone (it never writes, so every change it sees is another connection's, in this
/// process or any other).
///
/// Why not read the files' headers: opening and closing the database file or its `-shm` outside SQLite drops every
/// POSIX lock this process holds on it (fcntl locks belong to the process and the inode, and any close releases
/// them), and the next process to close the database then believes it is the last, checkpoints and deletes the
/// `-wal` and `-shm` under the connections still writing through them. Nothing in gpslog opens the database's files
/// but SQLite.
public final class ChangeWatch: @unchecked Sendable {
    // @unchecked Sendable: the connection is used only under `lock`, one caller at a time.
    private let lock = NSLock()
    private var database: Database?
    /// Connections opened so far: a reopened connection counts its versions from the start again.
    private var opened = 0
    /// The database file watched.
    public let path: String

    /// Watches the database at `path`; the connection opens at the first look.
    public init(path: String) { self.path = path }

    deinit { database?.close() }

    /// The database's version as one connection sees it: equal stamps mean no commit came in between.
    public struct Stamp: Equatable, Sendable {
        let connection: Int
        let version: Int64
    }

    /// A stamp that differs from the last one returned whenever another connection committed in between; nil when
    /// the database cannot be read now (the caller must then treat it as changed).
    public func stamp() -> Stamp? {
        lock.lock()
        defer { lock.unlock() }
        do {
            if database == nil {
                let connection = try Database(path: path, mode: .readOnly)
                try connection.setBusyTimeout(milliseconds: 1_000)
                database = connection
                opened += 1
            }
            guard let version = try database?.scalar("PRAGMA data_version")?.int64 else { return nil }
            return Stamp(connection: opened, version: version)
        } catch {
            // Opened again at the next look: the file may have been replaced or the disk may be back.
            database?.close()
            database = nil
            return nil
        }
    }
}
