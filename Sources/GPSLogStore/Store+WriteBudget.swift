// SPDX-License-Identifier: MIT
import GPSLogSQLite

/// What every connection asks of the disk: the journal, how hard a commit is made durable, and when the WAL is
/// copied back into the database. A recorder runs for months from an SD card, so these are chosen for the writes
/// they cost as much as for what they keep (the measurements are in Benchmarks/README.md, "The SD card").
extension Store {
    /// WAL frames after which a commit copies the WAL back into the database (SQLite's own default, stated here
    /// because it is a choice): a checkpoint writes each page the WAL holds once, however often it changed, so a
    /// larger WAL saves little more (a recorder's hot pages are a handful), and a smaller one rewrites them sooner.
    public static let checkpointFrames: Int32 = 1000

    /// The WAL's size in bytes after a checkpoint lets it start over. A WAL that an import beside a recording swelled
    /// is cut back to this; a recorder's stays below it and is reused in place (no blocks freed and taken again).
    public static let walSizeLimit: Int64 = 8 << 20

    /// Sets the WAL's settings on a new connection (after the switch to WAL).
    ///
    /// `synchronous = NORMAL`: a commit is complete when its frames are in the WAL file, which survives a killed
    /// process; the WAL is synced to the disk before each checkpoint and the database after it, so a power cut can
    /// lose the last commits the kernel had not yet written out, never the consistency of the file. FULL would sync
    /// every commit (the power-cut loss would shrink to the commit interval), at the price of a flush of the WAL's
    /// last, partly written block at every commit.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_synchronous>,
    /// <https://www.sqlite.org/wal.html#ckpt>
    static func applyWriteSettings(_ database: Database) throws {
        try database.execute("PRAGMA synchronous = NORMAL")
        try database.execute("PRAGMA wal_autocheckpoint = \(checkpointFrames)")
        try database.execute("PRAGMA journal_size_limit = \(walSizeLimit)")
    }
}
