// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The recorder at its seams: one lock for every name of the database file, SIGHUP, a recorder that does not
/// answer, a recorder killed before its first commit, and what `show` and `status` say about drops and the source.
@Suite(.ownThreads)
struct RecorderSeamsTests {
    /// `record --db link.sqlite` (a symlink to r.sqlite) used to take a lock of its own and record beside the first
    /// recorder; `delete` through the link removed the session the first one recorded into.
    @Test func aSymlinkToTheDatabaseReachesTheSameRecorderAndLock() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/r.sqlite"
            let link = dir + "/link.sqlite"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "r.sqlite")
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Real", "--source", "replay:sample?speed=1", "--commit-every", "1s"],
                database: db, folder: dir)
            let pid = recorder.process.processIdentifier
            defer { if recorder.process.isRunning { kill(pid, SIGKILL) } }
            // Reached through the link: status, and the recorder's session.
            let seen = waitForStatus(link, timeout: 30) { $0.sessionID != nil }
            #expect(seen?.pid == pid, "\(recorder.stderr)")

            let second = try runGPSLog(["record", "--name", "Twin", "--source", "replay:sample"], database: link)
            #expect(second.status == 1, "\(second.stderr)")
            #expect(second.stderr.hasPrefix("Error: a recording is already running on \(link) (pid \(pid))"))

            let marked = try runGPSLog(["mark", "Through the link"], database: link)
            #expect(marked.status == 0, "\(marked.stderr)")

            let deleted = try runGPSLog(["delete", "Real", "--yes"], database: link)
            #expect(deleted.status != 0)
            #expect(deleted.stderr.contains("'Real' is being recorded (pid \(pid))"), "\(deleted.stderr)")

            let stopped = try runGPSLog(["stop"], database: link)
            #expect(stopped.status == 0 && stopped.stdout == "Stopped recording 'Real'.\n", "\(stopped.stderr)")
            #expect(recorder.wait(timeout: 30) == 0)
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession("Real")
            #expect(session.end != nil)
            #expect(try store.marks(of: session.id).all().map(\.label) == ["Through the link"])
            #expect(try store.sessions().count == 1)
        }
    }

    /// A recorder whose SSH session dropped used to die of SIGHUP (exit 129) with the fixes of its commit interval
    /// uncommitted and its session left open with 0 entries.
    @Test func sighupCommitsAndEndsTheSessionLikeSigterm() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Hangup", "--source", "replay:sample?speed=4", "--commit-every", "1h"],
                database: db, folder: dir)
            let pid = recorder.process.processIdentifier
            defer { if recorder.process.isRunning { kill(pid, SIGKILL) } }
            let seen = waitForStatus(db, timeout: 30) { $0.entries > 5 }
            #expect(seen != nil, "\(recorder.stderr)")
            // Nothing committed yet: the hour has not passed.
            #expect(try CommitEveryTests.entries(db) == 0)

            kill(pid, SIGHUP)
            #expect(recorder.wait(timeout: 30) == 0, "\(recorder.stderr)")
            #expect(recorder.stderr.contains("SIGHUP: finishing the session"), "\(recorder.stderr)")
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession("Hangup")
            let stored = try store.summary(of: session).entryCount
            #expect(stored >= seen?.entries ?? 1)
            #expect(recorder.stdout.contains("\(stored) entries"), "\(recorder.stdout)")
            let last = try store.database.scalar(
                "SELECT MAX(TimeStamp) FROM Entries WHERE Session = ?", [.text(session.id)])?.int64
            #expect(session.end?.milliseconds == last)
        }
    }

    /// Under nohup, which ignores SIGHUP so that the recorder outlives its terminal, SIGHUP stays ignored.
    @Test func underNohupSighupIsIgnored() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
            process.arguments = [
                TestPaths.gpslogBinary, "record", "--name", "Nohup", "--source", "replay:sample?speed=1",
            ]
            var environment = ProcessInfo.processInfo.environment.withoutConfigFiles
            environment["GPSLOG_DB"] = db
            process.environment = environment
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            try process.runClosingFiles()
            let pid = process.processIdentifier
            defer { if process.isRunning { kill(pid, SIGKILL) } }
            let first = waitForStatus(db, timeout: 30) { $0.fixesReceived > 0 }
            let before = try #require(first)
            kill(pid, SIGHUP)
            // Still recording well after the signal: 8 more fixes are 8 s of the sample at speed 1.
            let after = waitForStatus(db, timeout: 60) { $0.fixesReceived > before.fixesReceived + 8 }
            #expect(after?.pid == pid)
            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0, "\(stopped.stderr)")
            if stopped.status != 0 { kill(pid, SIGKILL) }
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
    }

    /// kill -9 before the first commit leaves a session row with no entries and no recorder: neither `sessions`
    /// nor `show` may call it a recording.
    @Test func aRecorderKilledBeforeItsFirstCommitLeavesNoRecording() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Killed", "--source", "replay:sample?speed=4", "--commit-every", "1h"],
                database: db, folder: dir)
            #expect(waitUntil(timeout: 30) { recorder.stderr.contains("recording session") }, "\(recorder.stderr)")
            kill(recorder.process.processIdentifier, SIGKILL)
            #expect(recorder.wait(timeout: 30) != nil)
            #expect(try CommitEveryTests.entries(db) == 0)

            // `show` first: it must not depend on `sessions` having closed the session.
            let shownJSON = try runGPSLog(["show", "Killed", "--json"], database: db)
            #expect(shownJSON.status == 0, "\(shownJSON.stderr)")
            #expect(shownJSON.stdout.contains("\"recording\" : false"), "\(shownJSON.stdout)")
            let shown = try runGPSLog(["show", "Killed"], database: db)
            #expect(!shown.stdout.contains("still recording"), "\(shown.stdout)")

            let listed = try runGPSLog(["sessions", "--json"], database: db)
            #expect(listed.status == 0, "\(listed.stderr)")
            let list = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(list.allSatisfy { $0["recording"] as? Bool == false }, "\(listed.stdout)")
            let table = try runGPSLog(["sessions"], database: db)
            #expect(!table.stdout.contains("recording"), "\(table.stdout)")
        }
    }

    /// `status`, `mark` and `stop` used to wait for ever (25 s and more) on a recorder stopped with SIGSTOP.
    @Test func aStoppedRecorderGetsAClearAnswerInSeconds() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Frozen", "--source", "replay:sample?speed=1"], database: db, folder: dir)
            let pid = recorder.process.processIdentifier
            defer { if recorder.process.isRunning { kill(pid, SIGKILL) } }
            #expect(waitForStatus(db, timeout: 30) { $0.sessionID != nil } != nil, "\(recorder.stderr)")

            kill(pid, SIGSTOP)
            defer { kill(pid, SIGCONT) }
            for command in [["status"], ["mark", "Ice"], ["stop"]] {
                // `timeout` bounds the old behaviour (no answer, no end) so that the test fails instead of hanging.
                let started = ContinuousClock.now
                let r = try runGPSLog(command, database: db, launcher: ["/usr/bin/timeout", "60"])
                let took = ContinuousClock.now - started
                #expect(r.status == 1, "\(command): \(r.status) \(r.stderr)")
                #expect(
                    r.stderr.contains("the recorder on \(db) (pid \(pid)) did not answer within 5 s: it is stopped"),
                    "\(command): \(r.stderr)")
                #expect(r.stderr.contains("kill -CONT \(pid)"), "\(r.stderr)")
                #expect(took < .seconds(40), "\(command) took \(took)")
            }

            kill(pid, SIGCONT)
            // The `stop` sent while it was stopped waited in its socket; the recorder carries it out (or a new one).
            if !waitUntil(timeout: 15, { !recorder.process.isRunning }) { _ = try runGPSLog(["stop"], database: db) }
            #expect(recorder.wait(timeout: 30) == 0, "\(recorder.stderr)")
        }
    }

    /// A `stop` that waited in the socket while the recorder was stopped (SIGSTOP) arrives with the connections of
    /// clients that gave up on it; closing the socket on `stop` dropped the ones not yet served, and SwiftNIO trapped
    /// ("Deinited NIOAsyncWriter without calling finish()"): the recorder died with SIGILL instead of ending.
    @Test func aStopQueuedBehindGivenUpClientsEndsTheRecorderCleanly() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Queued", "--source", "replay:sample?speed=1"], database: db, folder: dir)
            let pid = recorder.process.processIdentifier
            defer { if recorder.process.isRunning { kill(pid, SIGKILL) } }
            #expect(waitForStatus(db, timeout: 30) { $0.sessionID != nil } != nil, "\(recorder.stderr)")
            let path = ControlSocket.path(forDatabase: db)

            kill(pid, SIGSTOP)
            let stop = try #require(connectToUnixSocket(path, blocking: true))
            let request = Array("{\"command\":\"stop\"}\n".utf8)
            #expect(write(stop, request, request.count) == request.count)
            // Clients that connect and go away unanswered, as many as the listening queue takes.
            var queued: [Int32] = []
            while queued.count < 100, let fd = connectToUnixSocket(path, blocking: false) { queued.append(fd) }
            #expect(queued.count >= 10, "the listening queue took \(queued.count) connections")
            kill(pid, SIGCONT)

            #expect(recorder.wait(timeout: 60) == 0, "\(recorder.stderr)")
            #expect(!recorder.stderr.contains("Fatal error"), "\(recorder.stderr)")
            // The recorder answered before it ended; the answer is there to read until the closed end.
            var answer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while case let count = read(stop, &chunk, chunk.count), count > 0 { answer += chunk.prefix(count) }
            #expect(String(decoding: answer, as: UTF8.self).contains("\"ok\":true"))
            for fd in queued + [stop] { close(fd) }
        }
    }

    /// A fix the NMEA decoder's time check drops (a date a year off, not confirmed by the fixes after it) never
    /// reaches the fix gate: `show` used to say "Dropped fixes: 0".
    @Test func showCountsTheFixesTheTimeCheckDropped() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/bad-date.nmea"
            try HostileTimeTests.log(badDate: "010523").write(toFile: path, atomically: true, encoding: .utf8)
            let db = dir + "/db.sqlite"
            let recorded = try runGPSLog(
                ["record", "--name", "Recorded", "--source", "replay:\(path)?speed=0", "--geocode", "off"], database: db
            )
            try #require(recorded.status == 0, "\(recorded.stderr)")
            #expect(recorded.stdout.contains("29 entries"), "\(recorded.stdout)")
            let shown = try runGPSLog(["show", "Recorded"], database: db)
            #expect(shown.stdout.contains("Dropped fixes: 1 (1 time)"), "\(shown.stdout)")
            let json = try runGPSLog(["show", "Recorded", "--json"], database: db)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let dropped = try #require(object["droppedFixes"] as? [String: Any], "\(json.stdout)")
            #expect(dropped["time"] as? Int == 1)
        }
    }

    /// `status` of a replay said "no sentence yet" for as long as it recorded.
    @Test func aReplayShowsItsLastSentence() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Replay", "--source", "replay:sample?speed=2"], database: db, folder: dir)
            defer { if recorder.process.isRunning { kill(recorder.process.processIdentifier, SIGKILL) } }
            let seen = waitForStatus(db, timeout: 30) { $0.fixesReceived > 2 }
            let state = try #require(seen?.sourceState, "\(recorder.stderr)")
            #expect(state.lastSentenceTime != nil)
            #expect((state.lastSentenceAgeSeconds ?? 99) < 30)
            let text = try runGPSLog(["status"], database: db)
            #expect(text.stdout.contains("last sentence"), "\(text.stdout)")
            #expect(!text.stdout.contains("no sentence yet"), "\(text.stdout)")
            _ = try runGPSLog(["stop"], database: db)
            #expect(recorder.wait(timeout: 30) == 0)
        }
    }
}
