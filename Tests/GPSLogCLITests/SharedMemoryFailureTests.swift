// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// When SQLite's shared memory fails under a process (a page of the mapped `-shm` that cannot be backed: a full
/// disk, or the file cut short under it), the kernel's SIGBUS used to kill gpslog without a word (exit 135). It now
/// says which database and what to do, and exits 1 like any other error.
@Suite(.ownThreads) struct SharedMemoryFailureTests {
    @Test func aSharedMemoryFailureIsAClearErrorNotASignal() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/shm.sqlite"
            for folder in ["serve", "cli"] {
                try FileManager.default.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: false)
            }
            let imported = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir + "/cli")
            #expect(imported.status == 0, "\(imported.stderr)")
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0", "--tiles", "none"], database: db, folder: dir + "/serve")
            _ = await waitUntilAsync(timeout: 60) { serve.stdout.contains("Listening on http://") }
            let line = try #require(serve.stdout.split(separator: "\n").first { $0.hasPrefix("Listening on ") })
            var base = String(line.dropFirst("Listening on ".count).prefix { !$0.isWhitespace })
            if base.hasSuffix("/") { base.removeLast() }
            // serve reads through its mapped -shm; the file cut to nothing under it is what a full disk, or another
            // process that wrongly believed itself the last, leaves: the next read of a mapped page is a SIGBUS.
            #expect(truncate(db + "-shm", 0) == 0)
            let post = try runTool(
                "/usr/bin/curl",
                [
                    "-s", "--max-time", "60", "-H", "Content-Type: application/json", "--data-binary",
                    #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5.1,52.1]},"properties":{"timestamp":"2024-05-01T10:00:00Z","device_id":"shm"}}]}"#,
                    base + "/overland",
                ])
            _ = post
            let status = await serve.exitStatus(timeout: 60)
            #expect(status == 1, "exit \(status.map(String.init) ?? "none"): \(serve.stderr)")
            #expect(serve.stderr.contains("shared memory") && serve.stderr.contains("SIGBUS"), "\(serve.stderr)")
            #expect(serve.stderr.contains("Free some space"))
        }
    }

    /// The same guard for a signal sent by hand to a reader that is waiting: the process's last word names its
    /// database.
    @Test func aBusErrorSentToAReaderEndsItWithTheDatabasesName() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/bus.sqlite"
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0", "--tiles", "none"], database: db, folder: dir)
            _ = await waitUntilAsync(timeout: 60) { serve.stdout.contains("Listening on http://") }
            kill(serve.process.processIdentifier, SIGBUS)
            let status = await serve.exitStatus(timeout: 60)
            #expect(status == 1, "exit \(status.map(String.init) ?? "none"): \(serve.stderr)")
            #expect(serve.stderr.contains("Error: the database \(db) could not be read"), "\(serve.stderr)")
        }
    }
}
