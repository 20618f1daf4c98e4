// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite

extension Store {
    /// True when some connection holds the write lock of the database at `path` now (a write transaction under
    /// way), found by asking for it without waiting and letting it go at once. A recorder waiting for that lock
    /// (within its busy timeout) uses no CPU and is not stuck: `status` and `mark` keep waiting for it.
    public static func writeLockIsHeld(path: String) -> Bool {
        // Never made here: only an existing database can be locked.
        guard FileManager.default.fileExists(atPath: path), let database = try? Database(path: path) else {
            return false
        }
        defer { database.close() }
        do {
            try database.setBusyTimeout(milliseconds: 0)
            try database.execute("BEGIN IMMEDIATE")
            try database.execute("ROLLBACK")
            return false
        } catch let error as SQLiteError {
            return error.isBusy
        } catch {
            return false
        }
    }
}
