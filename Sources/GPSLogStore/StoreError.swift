// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite

/// What can go wrong with the session store, said so the user knows where and what to do.
public enum StoreError: LocalizedError, Equatable {
    /// The database file cannot be created or opened.
    case cannotOpen(path: String, reason: String)
    /// The file is another program's SQLite database (or GPS Log's); it was left as it was.
    case notGPSLog(path: String, tables: [String], gpsLogApp: Bool)
    /// Another connection kept the database locked for longer than the busy timeout.
    case busy(path: String, milliseconds: Int)
    /// The file was written by a newer gpslog.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// A migration script failed; nothing of it was applied.
    case migrationFailed(path: String, version: Int, file: String, reason: String)
    /// No session matches the name, id or id prefix.
    case sessionNotFound(query: String, candidates: [String])
    /// More than one session matches.
    case ambiguousSession(query: String, candidates: [String])
    /// An entry of a batch broke a constraint; the whole batch was rolled back.
    case invalidEntry(index: Int, time: String, reason: String)
    /// A session's fields broke a constraint.
    case invalidSession(reason: String)
    /// A region's fields broke a constraint (its name in use, a radius not positive); `reason` in words
    /// (`regionReason`).
    case invalidRegion(name: String, reason: String)
    /// A cleaning, split or merge of this session cannot be done as asked; nothing was changed.
    case cannotChange(session: String, reason: String)
    /// SQLite could not read or write the database (disk full, a read-only file, I/O error); `reason` is SQLite's.
    case failed(path: String, reason: String)

    /// A SQLite failure on the database at `path`: `busy` for a lock held past the timeout, `failed` for the rest.
    init(_ error: SQLiteError, path: String, busyTimeout: Int32) {
        self =
            error.isBusy
            ? .busy(path: path, milliseconds: Int(busyTimeout)) : .failed(path: path, reason: error.message)
    }

    /// True when what was written broke a constraint (an entry, a session, a region): writing it again fails the same
    /// way, unlike a lock, a full disk or an I/O error, which pass.
    public var isAboutTheData: Bool {
        switch self {
        case .invalidEntry, .invalidSession, .invalidRegion: true
        default: false
        }
    }

    /// What went wrong, naming the database file or session, and what to do, for people.
    public var errorDescription: String? {
        switch self {
        case .cannotOpen(let path, let reason):
            return
                "cannot open the database \(path): \(reason). Check the path and its permissions, or choose another file with --db or GPSLOG_DB."
        case .notGPSLog(let path, let tables, let gpsLogApp):
            if gpsLogApp {
                return
                    "\(path) is a GPS Log database, not gpslog's; it was left unchanged. Copy its sessions into gpslog's database with `gpslog import \(path)`."
            }
            let shown = tables.prefix(5).map { "'\($0.visible)'" }.joined(separator: ", ")
            let more = tables.count > 5 ? " and \(tables.count - 5) more" : ""
            return
                "\(path) is a SQLite database of another program (it has \(shown)\(more)), not gpslog's; it was left unchanged. Choose another file with --db or GPSLOG_DB."
        case .busy(let path, let milliseconds):
            let waited = milliseconds >= 1000 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
            return
                "the database \(path) stayed locked for \(waited): another program is writing to it (an import of a large file locks it until it has finished). Try again when it has finished."
        case .schemaTooNew(let path, let found, let supported):
            return
                "the database \(path) has schema version \(found), but this gpslog knows versions up to \(supported); upgrade gpslog to use it."
        case .migrationFailed(let path, let version, let file, let reason):
            return
                "migrating \(path) to schema version \(version) (Schema/\(file)) failed: \(reason); the database was left at the previous version."
        case .sessionNotFound(let query, let candidates):
            var text = "no session is named '\(query)' or has an id starting with '\(query)'."
            if candidates.isEmpty {
                text += " The database has no sessions yet."
            } else {
                text += " Sessions:\n" + candidates.map { "  \($0)" }.joined(separator: "\n")
            }
            return text
        case .ambiguousSession(let query, let candidates):
            return "'\(query)' matches \(candidates.count) sessions; name one by its id (or a longer id prefix):\n"
                + candidates.map { "  \($0)" }.joined(separator: "\n")
        case .invalidEntry(let index, let time, let reason):
            return
                "entry \(index + 1) of the batch (time \(time)) was refused: \(reason); no entry of the batch was stored."
        case .invalidSession(let reason):
            return "the session was refused: \(reason)"
        case .invalidRegion(let name, let reason):
            return "the region '\(name)' was refused: \(reason)"
        case .cannotChange(let session, let reason):
            return "'\(session.visible)': \(reason); nothing was changed."
        case .failed(let path, let reason):
            return
                "the database \(path) could not be read or written: \(reason). Check free space and permissions, or run `sqlite3 \(path) 'PRAGMA integrity_check'`."
        }
    }
}
