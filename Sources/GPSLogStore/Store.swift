// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogSystem

/// The session store: one SQLite file holding the Sessions and Entries tables.
///
/// Concurrency model: a `Store` owns one connection and must be used by one task or thread at a time (wrap it in
/// an actor to share it). Several processes may open the same file at once: the file is in WAL mode, so readers
/// never block the writer, every write transaction takes the write lock up front (BEGIN IMMEDIATE), and a busy
/// timeout makes a writer wait for another's commit instead of failing with "database is locked". The exception is
/// a `bulkWrite` (an import) while no other connection is open: it takes a rollback journal, and readers that
/// arrive meanwhile wait for its commit.
public final class Store {
    /// The connection. Only the Store speaks SQL: no module above it sees this (tests reach it with @testable).
    let database: Database
    /// The database file.
    public var path: String { database.path }

    /// Called with the number of rows after each batch of entries is stored (progress bars of long imports).
    public var onAppend: ((Int) -> Void)?

    /// How long this connection waits for another's lock, in milliseconds.
    let busyTimeout: Int32

    /// True inside `bulkWrite`: entries are checked in Swift, SQLite's CHECKs are off.
    var checksInSwift = false

    /// How long a writer waits for another process's transaction before failing.
    public static let busyTimeoutMilliseconds: Int32 = 15_000

    /// Opens the database at `path`, creating it (mode 0600, its folder 0700) and migrating it to the latest schema.
    ///
    /// - Throws: `StoreError.cannotOpen` when the file cannot be created or is not a database,
    ///   `StoreError.notGPSLog` for another program's database (left as it was), `StoreError.busy`,
    ///   `StoreError.schemaTooNew` or `StoreError.migrationFailed`.
    /// - Parameters:
    ///   - path: the database file.
    ///   - migrate: false opens the file at the schema version it has, without upgrading it.
    ///   - busyTimeout: how long to wait for another process's lock, in milliseconds.
    ///   - onUpgrade: told how the long work of a first open by a newer gpslog goes (for a progress bar).
    public init(
        path: String, migrate: Bool = true, busyTimeout: Int32 = Store.busyTimeoutMilliseconds,
        onUpgrade: ((UpgradeProgress) -> Void)? = nil
    ) throws {
        // On a read-only file system (a card mounted read-only, a backup disk) nothing can write the file, so it is
        // read without locks or `-shm`, neither of which can be had there.
        let readOnlyMedium = Store.isOnReadOnlyFileSystem(path)
        BusErrorGuard.install(
            message:
                "Error: the database \(path) could not be read: its shared memory (\(path)-shm) failed (SIGBUS), most likely because its disk is full. Free some space there and try again; what was committed is safe.\n"
        )
        if !readOnlyMedium { try Store.prepareFile(at: path) }
        self.busyTimeout = busyTimeout
        do {
            database = try readOnlyMedium ? Store.openOnReadOnlyMedium(path) : Database(path: path)
            try database.setBusyTimeout(milliseconds: busyTimeout)
            try database.setForeignKeys(enabled: true)
            // Before anything is written: a database that is not gpslog's is left exactly as it is.
            try Store.refuseForeign(database, path: path)
        } catch let error as SQLiteError where error.isBusy {
            throw StoreError.busy(path: path, milliseconds: Int(busyTimeout))
        } catch let error as SQLiteError {
            throw StoreError.cannotOpen(path: path, reason: error.message)
        }
        if readOnlyMedium {
            let version = try sqlite { try database.userVersion() }
            if migrate && version < Migrations.latestVersion {
                throw StoreError.cannotOpen(
                    path: path,
                    reason:
                        "it is on a read-only file system and was written by an older gpslog, whose upgrade must write it. Copy it to a writable folder, or mount it read-write once"
                )
            }
            if migrate && version > Migrations.latestVersion {
                throw StoreError.schemaTooNew(path: path, found: version, supported: Migrations.latestVersion)
            }
            return
        }
        do {
            // Space freed by `delete`, `prune` and `merge` goes back to the file system (Store+Prune.swift). Only an
            // empty file can take it: the switch to WAL below writes the header.
            if try database.scalar("PRAGMA page_count")?.int64 == 0 {
                try database.execute("PRAGMA auto_vacuum = INCREMENTAL")
            }
            // WAL: a recorder keeps writing while `mark`, `export` or `sessions` read. NORMAL synchronous is durable
            // against a killed process (every commit is in the WAL file); only a power cut may lose the last commits
            // (see Store+WriteBudget.swift).
            let mode = try Store.switchToWAL(database, busyTimeout: busyTimeout)
            if mode?.lowercased() != "wal" {
                throw StoreError.cannotOpen(
                    path: path, reason: "could not switch to WAL journal mode (got \(mode ?? "nothing"))")
            }
            try Store.applyWriteSettings(database)
        } catch let error as SQLiteError where error.isBusy {
            throw StoreError.busy(path: path, milliseconds: Int(busyTimeout))
        } catch let error as SQLiteError {
            throw StoreError.cannotOpen(path: path, reason: error.message)
        }
        if migrate {
            let version = try sqlite { try database.userVersion() }
            try migrateAndUpgrade(from: version, onUpgrade: onUpgrade)
        }
    }

    /// True when `path` (or the folder it would be created in) is on a file system mounted read-only.
    static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        let folder = (path as NSString).deletingLastPathComponent
        guard statvfs(path, &info) == 0 || statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// The connection to a file on a read-only file system: immutable (no locks, no `-shm`) when its WAL is empty or
    /// gone; else read-only through the `-shm` beside it, which SQLite needs to read the WAL there.
    static func openOnReadOnlyMedium(_ path: String) throws -> Database {
        var info = stat()
        guard stat(path + "-wal", &info) == 0, info.st_size > 0 else {
            return try Database(path: path, mode: .immutable)
        }
        let database = try Database(path: path, mode: .readOnly)
        do {
            _ = try database.scalar("SELECT COUNT(*) FROM sqlite_schema")
        } catch let error as SQLiteError {
            throw StoreError.cannotOpen(
                path: path,
                reason:
                    "it is on a read-only file system and its last changes are still in \(path)-wal, which SQLite can read there only with its -shm file beside it (\(error.message)). Copy the database and its -wal to a writable folder and open the copy"
            )
        }
        return database
    }

    /// Throws `StoreError.notGPSLog` for a database that has tables but no gpslog schema version: another program's
    /// file (or GPS Log's, which `gpslog import` reads). gpslog writes its tables and `user_version` in one
    /// transaction, so a file of its own never has the one without the other.
    ///
    /// The version and the tables are read by one statement, so from one snapshot: read one after the other, a
    /// process opening a new file read version 0, another process then committed the first migration, and the
    /// tables it read next made the new file look like another program's (seen with twelve processes at once).
    static func refuseForeign(_ database: Database, path: String) throws {
        var tables: [String] = []
        let statement = try database.makeStatement(
            """
            SELECT name, (SELECT user_version FROM pragma_user_version) FROM sqlite_schema
            WHERE name NOT LIKE 'sqlite_%' ORDER BY type = 'table' DESC, name
            """)
        while try statement.step() {
            guard statement.int64(at: 1) == 0 else { return }
            tables.append(statement.string(at: 0) ?? "")
        }
        guard !tables.isEmpty else { return }
        let gpsLogApp = Set(tables).isSuperset(of: ["Sessions", "Entries"])
        throw StoreError.notGPSLog(path: path, tables: tables, gpsLogApp: gpsLogApp)
    }

    /// `PRAGMA journal_mode = WAL`, retried for up to `busyTimeout` ms while another connection writes the
    /// database through a rollback journal (a `bulkWrite`). The switch reads the header, then must upgrade its read
    /// lock to write it; SQLite refuses that upgrade at once, without calling the busy handler (it would deadlock
    /// against a writer waiting for the readers to go), so the wait is ours to do.
    static func switchToWAL(_ database: Database, busyTimeout: Int32) throws -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int(busyTimeout))
        while true {
            do {
                return try database.scalar("PRAGMA journal_mode = WAL")?.string
            } catch let error as SQLiteError where error.isBusy && ContinuousClock.now < deadline {
                usleep(20_000)
            }
        }
    }

    /// Closes the connection. The store must not be used afterwards.
    public func close() { database.close() }

    /// Runs SQLite work for a public method: a SQLite failure leaves the Store as a `StoreError` that keeps
    /// SQLite's message (`busy` for a lock held past the timeout, `failed` for the rest), so no caller needs the
    /// SQLite module to understand it. Errors that are already the Store's, or the caller's, pass unchanged.
    @inline(__always) func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw storeError(error)
        }
    }

    /// A SQLite failure on this database as the Store's error.
    func storeError(_ error: SQLiteError) -> StoreError { StoreError(error, path: path, busyTimeout: busyTimeout) }

    /// Creates the file with owner-only permissions before SQLite opens it: SQLite gives the -wal and -shm files
    /// the same mode as the database, so all three stay private.
    public static func prepareFile(at path: String) throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw StoreError.cannotOpen(path: path, reason: "it is a directory") }
            return
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !fm.fileExists(atPath: folder) {
            do {
                try fm.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError.cannotOpen(
                    path: path, reason: "cannot create the folder \(folder) (\(Store.reason(error)))")
            }
        }
        do {
            closeDescriptor(try systemCall { open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600) })
        } catch  where error.code == EEXIST {
            return  // another process created it first
        } catch {
            throw StoreError.cannotOpen(path: path, reason: error.reason)
        }
    }

    private static func reason(_ error: Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return SystemCallError(code: Int32(underlying.code)).reason
        }
        return error.localizedDescription
    }
}

/// Outside the class, where `close` means the system call and not `Store.close()`.
private func closeDescriptor(_ fd: Int32) { close(fd) }

// Explicit non-conformance: the connection belongs to one task at a time.
@available(*, unavailable)
extension Store: Sendable {}
