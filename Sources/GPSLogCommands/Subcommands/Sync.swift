// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogPostgres
import GPSLogStore

extension GPSLog {
    /// Pushes sessions into PostgreSQL with PostGIS, resuming after what the last sync committed.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Push sessions, entries, marks, transitions and visits into PostgreSQL with PostGIS.",
            discussion: """
                Creates gpslog's tables in the database when missing (Schema/postgres/README.md; PostGIS must be \
                installed on the server), then sends what is new since the last sync to that database: entries in \
                batches, one transaction each, and a batch counts as sent only after PostgreSQL committed it. A \
                killed sync goes on where it stopped; sending a row twice stores it once. The password comes from \
                the URL, --postgres-password-file or $PGPASSWORD, and is never printed. TLS is off on loopback and \
                Unix sockets unless the URL says sslmode=require, and 'prefer' elsewhere (sslmode=verify-full checks \
                the certificate).
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(
            help: ArgumentHelp(
                "The database: postgres://USER@HOST:PORT/DATABASE, or postgres:///DATABASE?host=/run/postgresql.",
                valueName: "url"))
        var url: String
        @Argument(help: "Sessions to push (default: every session).") var sessions: [String] = []
        @OptionGroup var postgres: PostgresOptions
        @Option(help: "This machine's name in sessions.origin (default: the host name).") var origin: String?
        @Option(help: "Entries per PostgreSQL transaction.") var batchSize = 5000
        @Flag(help: "Say what would be sent, and send nothing.") var dryRun = false
        @Flag(help: "Print the summary as JSON.") var json = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            guard PostgresOptions.isPostgres(url) else {
                throw ValidationError(
                    "The URL must start with postgres:// (e.g. postgres://gpslog@db.example:5432/fleet).")
            }
            guard (1...50_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 50000.") }
        }

        func run() throws {
            let location = try postgres.location(url)
            let store = try global.openStore()
            defer { store.close() }
            let chosen = try sessions.isEmpty ? store.sessions() : sessions.map { try store.resolveSession($0) }
            if dryRun { return try plan(chosen, store: store, destination: location.description) }
            let database = try PostgresDatabase(location)
            defer { database.close() }
            let sync = PostgresSync(
                store: store, database: database, origin: "sync " + (origin ?? ProcessInfo.processInfo.hostName))
            sync.batchSize = batchSize
            let progress = SyncProgress(label: "Syncing to \(location.description)")
            let report: SyncReport
            do {
                report = try sync.sync(chosen) { progress.update(done: $0, total: $1) }
            } catch {
                progress.finish()
                throw error
            }
            progress.finish()
            if json { return print(try JSONOutput.render(report)) }
            var line =
                "Synced \(count(chosen.count, "session")) to \(report.destination): \(count(report.entries, "new entry", "new entries")) in \(count(report.batches, "transaction")), \(count(report.sessions, "session")) new or changed"
            if report.alreadyThere > 0 { line += ", \(count(report.alreadyThere, "entry", "entries")) there already" }
            if report.transitions > 0 { line += ", \(count(report.transitions, "transition"))" }
            if report.visits > 0 { line += ", \(count(report.visits, "visit"))" }
            print(line + ".")
        }

        /// `--dry-run`: per session, the entries after its cursor.
        func plan(_ chosen: [Session], store: Store, destination: String) throws {
            let planned = try PostgresSync.plan(chosen, store: store, destination: destination)
            let entries = planned.map(\.1).reduce(0, +)
            let sessions = planned.filter { $0.1 > 0 }.count
            print(
                "Would send \(count(entries, "entry", "entries")) of \(count(sessions, "session")) to \(destination)\(sessions > 0 ? ":" : ".")"
            )
            for (session, n) in planned where n > 0 {
                print("  '\(session.name.visible)': \(count(n, "entry", "entries"))")
            }
            print("Sessions are sent too when renamed or finished. Nothing was sent (--dry-run).")
        }
    }
}

/// "1 session", "2 sessions".
private func count(_ n: Int, _ one: String, _ many: String? = nil) -> String {
    "\(n) " + (n == 1 ? one : many ?? one + "s")
}

/// A long sync's progress on stderr: a bar on a terminal, else a line every ten seconds (logs, services).
final class SyncProgress {
    private let bar: ProgressBar
    private let label: String
    private let terminal = isatty(STDERR_FILENO) == 1
    private var shown = 0
    private var lastLine = Date()

    init(label: String) {
        self.label = label
        bar = ProgressBar(label: label)
    }

    func update(done: Int, total: Int) {
        bar.total = total
        bar.advance(by: done - shown)
        shown = done
        if !terminal, Date().timeIntervalSince(lastLine) >= 10 {
            lastLine = Date()
            FileHandle.standardError.write(Data("\(label): \(done) of \(counted(total, "entry", "entries"))\n".utf8))
        }
    }

    func finish() { bar.finish() }
}
