// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The broker, its clients, the sqlite3 shell and GNU time, as `make test` installs them.
private let soakReady =
    MosquittoBroker.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/time")

/// The seams soak: every process that writes or reads one database, at once, for `GPSLOG_SOAK_SECONDS` (60 in a
/// plain `swift test`; `make soak` runs 600): a recorder replaying the sample again and again, `serve` taking
/// Overland and OwnTracks posts from five loopback phones and OwnTracks messages from a real Mosquitto broker, its
/// web view walked route by route (and by headless Chromium), `sessions`, `export`, `mark`, `delete --dry-run`,
/// `check` and imports in loops, kill -9 of serve, the recorder or an import every 4 to 12 seconds (a seeded draw:
/// `GPSLOG_SOAK_SEED` repeats it), and the database's disk full for 10 to 20 seconds (a 64 MB tmpfs, as root).
/// Afterwards every point answered 200 is in the database exactly once, the database passes integrity_check, no
/// process died of a signal the soak did not send or wrote crash text, and each kind of process stayed under its
/// memory bound. The figures are printed; a failed run keeps its folder (children's output of every failure).
@Suite(
    .ownThreads,
    .enabled(if: soakReady, "needs mosquitto, mosquitto-clients, sqlite3 and GNU time (make test installs them)"))
struct SoakTests {
    /// Seconds of load: `GPSLOG_SOAK_SECONDS`, else 60.
    static var seconds: Double {
        ProcessInfo.processInfo.environment["GPSLOG_SOAK_SECONDS"].flatMap { Double($0) }.map { max(20, $0) } ?? 60
    }

    /// The peak resident size each kind of gpslog process must stay under, MiB (debug build): about three times the
    /// peaks of a 10-minute run (serve 69, the recorder 51, the commands 36 to 43), so that growth is caught.
    static let memoryBounds = [
        "serve": 200, "record": 150, "import": 150, "sessions": 150, "export": 150, "check": 150, "mark": 150,
        "delete": 150,
    ]

    @Test func everyAcknowledgedPointIsStoredOnceThroughKillsAndAFullDisk() async throws {
        let seconds = Self.seconds
        let folder = try makeTemporaryDirectory()
        let seed =
            ProcessInfo.processInfo.environment["GPSLOG_SOAK_SEED"].flatMap { UInt64($0) } ?? .random(in: 1...(1 << 53))
        print(
            "soak: seed \(seed) (GPSLOG_SOAK_SEED=\(seed) draws the same schedule), \(Int(seconds)) s of load, in \(folder)"
        )
        let disk = folder + "/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = Self.mountSmallDisk(disk)
        defer { if mounted { Self.unmount(disk) } }
        let broker = try MosquittoBroker(folder: folder)
        let run = try SoakRun(
            folder: folder, database: disk + "/soak.sqlite", disk: mounted ? disk : nil, seed: seed, seconds: seconds,
            brokerPort: broker.port)

        let serving = DispatchGroup()
        let load = DispatchGroup()
        Self.thread(serving) { run.superviseServe() }
        let sampling = DispatchGroup()
        let sampled = Flag()
        Self.thread(sampling) {
            while !sampled.isSet {
                run.sampleMemory()
                run.pause(until: Date().addingTimeInterval(0.5))
            }
        }
        Self.thread(load) { run.superviseRecorder() }
        for i in 1...3 { Self.thread(load) { run.postOverland(index: i) } }
        for i in 4...5 { Self.thread(load) { run.postOwnTracks(index: i) } }
        Self.thread(load) { run.publishMQTT() }
        Self.thread(load) { run.walkTheView() }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") {
            Self.thread(load) { run.browse(seconds: seconds) }
        }
        Self.thread(load) { run.runCommands() }
        Self.thread(load) { run.importAgainAndAgain() }
        Self.thread(load) { run.killAtRandom() }
        Self.thread(load) { run.fillTheDisk(seconds: seconds) }
        await Self.wait(load)
        print("soak: [\(run.elapsed)] the load and the phones' resends are over; waiting for serve's MQTT queue")

        // What the broker delivered is stored by serve in its own time: wait until the count stops moving.
        var last = -1
        var still = Date()
        _ = await waitUntilAsync(timeout: 60) {
            let now = Self.mqttRows(run.database)
            if now != last { (last, still) = (now, Date()) }
            return Date().timeIntervalSince(still) > 5
        }
        run.serveDraining = true
        await Self.wait(serving)
        sampled.set()
        await Self.wait(sampling)

        let report = try SoakReport(run: run, brokerLog: broker.logText)
        report.print()
        #expect(report.integrity == "ok", "PRAGMA integrity_check: \(report.integrity.prefix(500))")
        #expect(report.lost.isEmpty, "acknowledged and lost: \(report.lost.sorted().prefix(10))")
        #expect(report.duplicates.isEmpty, "stored more than once: \(report.duplicates.sorted().prefix(10))")
        // Published while serve was up and subscribed, the disk not full: owed even without a durable session.
        let unexplained = report.mqttMissing.filter { run.mqttExcuse($0) == nil }
        #expect(unexplained.isEmpty, "published while serve was up and lost: \(unexplained.sorted().prefix(10))")
        if report.mqttDurable {
            #expect(report.mqttMissing.isEmpty, "published and lost: \(report.mqttMissing.sorted().prefix(10))")
        }
        #expect(run.findings.isEmpty, "\(run.findings.joined(separator: "\n"))")
        #expect(report.overBound.isEmpty, "over the memory bound: \(report.overBound)")
        #expect(report.acknowledged > 0, "no post was answered 200")
        let passed =
            report.integrity == "ok" && report.lost.isEmpty && report.duplicates.isEmpty && run.findings.isEmpty
            && unexplained.isEmpty && (!report.mqttDurable || report.mqttMissing.isEmpty)
            && report.overBound.isEmpty && report.acknowledged > 0
        if passed {
            if mounted { Self.unmount(disk) }
            try? FileManager.default.removeItem(atPath: folder)
        } else {
            // The database leaves the tmpfs with the rest of the evidence.
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.copyItem(
                    atPath: run.database + suffix, toPath: folder + "/soak.sqlite" + suffix)
            }
            print("soak: kept \(folder) (the database, and the output of each process that went wrong, in logs/)")
        }
    }

    // MARK: - Helpers

    /// Runs `body` on a thread of its own (the soak's loops block on sockets and processes; the cooperative pool
    /// has two threads here).
    static func thread(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }

    static func wait(_ group: DispatchGroup) async {
        await withCheckedContinuation { done in group.notify(queue: .global()) { done.resume() } }
    }

    /// Mounts a 64 MB tmpfs on `path` (as root, where mount works); false, said why, otherwise.
    static func mountSmallDisk(_ path: String) -> Bool {
        guard getuid() == 0 else {
            print("soak: the full-disk phase is SKIPPED: not root (mounting a small tmpfs needs root)")
            return false
        }
        let r = try? runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", path])
        guard r?.status == 0 else {
            print("soak: the full-disk phase is SKIPPED: mount -t tmpfs failed here (status \(r?.status ?? -1))")
            return false
        }
        print("soak: the database is on a 64 MB tmpfs; the full-disk phase will run")
        return true
    }

    static func unmount(_ path: String) {
        if (try? runTool("/bin/umount", [path]))?.status != 0 { _ = try? runTool("/bin/umount", ["-l", path]) }
    }

    /// Rows of the MQTT phones' sessions (0 when the database cannot be read now).
    static func mqttRows(_ database: String) -> Int {
        let sql = "SELECT count(*) FROM Entries e JOIN Sessions s ON s.ID = e.Session WHERE s.Name LIKE 'soak/mqtt%';"
        return (try? sqlite(database, sql)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    /// The sqlite3 command-line shell's output for `sql` on `database` (waiting up to 20 s for a lock).
    static func sqlite(_ database: String, _ sql: String) throws -> String {
        try runTool("/usr/bin/sqlite3", ["-cmd", ".timeout 20000", database, sql]).output
    }
}

/// A flag one thread sets and another reads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
