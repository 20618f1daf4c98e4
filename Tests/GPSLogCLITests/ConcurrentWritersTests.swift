// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Several gpslog processes write one database at the same moment: WAL, BEGIN IMMEDIATE and the busy timeout
/// must make them take turns, never fail with "database is locked".
@Suite(.ownThreads)
struct ConcurrentWritersTests {
    @Test func processesWritingAtOnceAllSucceed() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/shared.sqlite"
            // Start from a fresh file so the first writers also race on creating and migrating it.
            let results = try await withThrowingTaskGroup(of: [CommandResult].self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        var results: [CommandResult] = []
                        for round in 0..<3 {
                            results.append(
                                try runGPSLog(["import", "--sample", "--name", "w\(worker)-r\(round)"], database: db))
                            results.append(try runGPSLog(["sessions"], database: db))
                        }
                        return results
                    }
                }
                var all: [CommandResult] = []
                for try await r in group { all += r }
                return all
            }
            for r in results {
                #expect(r.status == 0, "a writer failed: \(r.stderr)")
                #expect(!r.stderr.contains("locked"))
            }
            let store = try Store(path: db)
            defer { store.close() }
            let sessions = try store.sessions()
            #expect(sessions.count == 12)
            let counts = try Set(sessions.map { try store.summary(of: $0).entryCount })
            #expect(counts.count == 1, "every import stored the same number of entries: \(counts)")
            #expect(try store.database.scalar("PRAGMA integrity_check")?.string == "ok")
        }
    }
}
