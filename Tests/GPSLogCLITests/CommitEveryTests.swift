// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// `record --commit-every`: entries wait in memory for their commit, a mark commits them at once.
@Suite(.ownThreads)
struct CommitEveryTests {
    @Test func aMarkCommitsAtOnceWhateverTheInterval() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Slow", "--source", "replay:sample?speed=4", "--commit-every", "1h"],
                database: db, folder: dir)
            #expect(waitUntil(timeout: 20) { recorder.stderr.contains("recording session") }, "\(recorder.stderr)")
            // The session row exists from the first fix on; its entries wait for the hour (or a mark).
            #expect(try Self.entries(db) == 0)
            let marked = try runGPSLog(["mark", "--json", "Now"], database: db)
            #expect(marked.status == 0, "\(marked.stderr)")
            let mark = try JSONDecoder().decode(MarkInfo.self, from: Data(marked.stdout.utf8))
            let committed = try Self.entries(db)
            #expect(committed > 1, "the mark and the entries before it are committed")
            kill(recorder.process.processIdentifier, SIGKILL)
            #expect(recorder.wait(timeout: 10) != nil)
            let d = try Database(path: db, mode: .readOnly)
            defer { d.close() }
            #expect(try d.scalar("SELECT COUNT(*) FROM Entries WHERE EntryID = ?", [.text(mark.entryID)])?.int64 == 1)
            #expect(try Self.entries(db) == committed)
        }
    }

    @Test func anIntervalUnderASecondIsRefused() throws {
        try withTemporaryDirectory { dir in
            let r = try runGPSLog(["record", "--commit-every", "500ms"], database: dir + "/gpslog.sqlite")
            #expect(r.status == 64)
            #expect(r.stderr.contains("--commit-every must be 1s or more"), "\(r.stderr)")
        }
    }

    static func entries(_ db: String) throws -> Int64 {
        let d = try Database(path: db, mode: .readOnly)
        defer { d.close() }
        try d.setBusyTimeout(milliseconds: 15_000)
        return try d.scalar("SELECT COUNT(*) FROM Entries")?.int64 ?? 0
    }
}
