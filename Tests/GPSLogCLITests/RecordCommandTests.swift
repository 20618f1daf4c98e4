// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// `gpslog record`, `mark`, `status` and `stop`, run as a user runs them.
@Suite(.ownThreads, .serialized)
struct RecordCommandTests {
    /// Reads `status --json` from the running recorder.
    func status(_ db: String) throws -> RecorderStatus? {
        let r = try runGPSLog(["status", "--json"], database: db)
        guard r.status == 0 else { return nil }
        return try JSONDecoder().decode(RecorderStatus.self, from: Data(r.stdout.utf8))
    }

    @Test func aSecondProcessMarksTheFreshestFixWhileRecording() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Sail", "--source", "replay:sample?speed=8"], database: db, folder: dir)
            #expect(try waitUntil(timeout: 20) { (try status(db)?.fixesReceived ?? 0) > 20 })

            let before = try #require(try status(db))
            let marked = try runGPSLog(["mark", "Buoy \"7\" <&>", "--json"], database: db)
            let after = try #require(try status(db))
            #expect(marked.status == 0, "\(marked.stderr)")
            let mark = try JSONDecoder().decode(MarkInfo.self, from: Data(marked.stdout.utf8))
            #expect(mark.label == "Buoy \"7\" <&>")
            // The freshest fix at the moment of the mark, not the last one-second sample.
            let markTime = try #require(Timestamp(iso8601: mark.time))
            #expect(markTime >= Timestamp(iso8601: before.lastFixTime!)!)
            #expect(markTime <= Timestamp(iso8601: after.lastFixTime!)!)
            // Committed at once: another process sees it while the recording goes on.
            let shown = try runGPSLog(["show", mark.sessionID, "--json"], database: db)
            #expect(shown.stdout.contains(mark.entryID))
            #expect(shown.stdout.contains("\"recording\" : true"))

            let socket = ControlSocket.path(forDatabase: db)
            #expect((try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int) == 0o600)

            let second = try runGPSLog(["record", "--name", "Again", "--source", "replay:sample"], database: db)
            #expect(second.status == 1)
            #expect(
                second.stderr.hasPrefix(
                    "Error: a recording is already running on \(db) (pid \(recorder.process.processIdentifier))"))

            let stopped = try runGPSLog(["stop"], database: db)
            #expect(stopped.status == 0 && stopped.stdout == "Stopped recording 'Sail'.\n")
            #expect(recorder.wait(timeout: 10) == 0)
            #expect(recorder.stdout.hasPrefix("Recorded 'Sail'"))
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession("Sail")
            #expect(session.end != nil)
            let marks = try store.marks(of: session.id).all()
            #expect(marks.map(\.label) == ["Buoy \"7\" <&>"])
            #expect(marks.first?.id == mark.entryID && marks.first?.latitude == mark.latitude)
        }
    }

    @Test func sigtermEndsTheSessionCleanly() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Term", "--source", "replay:sample?speed=4"], database: db, folder: dir)
            #expect(try waitUntil(timeout: 20) { (try status(db)?.entries ?? 0) > 10 })
            kill(recorder.process.processIdentifier, SIGTERM)
            #expect(recorder.wait(timeout: 10) == 0)
            #expect(recorder.stderr.contains("SIGTERM: finishing the session"))
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession("Term")
            let last = try store.database.scalar(
                "SELECT MAX(TimeStamp) FROM Entries WHERE Session = ?", [.text(session.id)])?.int64
            #expect(session.end?.milliseconds == last)
            #expect(!FileManager.default.fileExists(atPath: ControlSocket.path(forDatabase: db)))
        }
    }

    @Test func controlCommandsSayWhenNothingIsRecording() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            for command in [["mark", "x"], ["status"], ["stop"]] {
                let r = try runGPSLog(command, database: db)
                #expect(r.status == 1)
                #expect(
                    r.stderr == "Error: no recording is running on \(db); start one with `gpslog record --name NAME`.\n"
                )
            }
            let bad = try runGPSLog(["record", "--name", "x", "--source", "usb:/dev/nothing"], database: db)
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("unknown source 'usb:/dev/nothing'"))
        }
    }

    @Test func aManualMarkGoesIntoAnySession() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            _ = try runGPSLog(["import", "--sample", "--name", "Sail"], database: db)
            let r = try runGPSLog(
                [
                    "mark", "--session", "Sail", "--lat", "52.85", "--lon", "5.31", "--time", "2018-08-20T09:49:00Z",
                    "Harbour",
                ], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            let shown = try runGPSLog(["show", "Sail"], database: db)
            #expect(shown.stdout.contains("2018-08-20 09:49:00Z  52.850000° N, 5.310000° E  Harbour"))
            let outOfRange = try runGPSLog(["mark", "--session", "Sail", "--lat", "95", "--lon", "5"], database: db)
            #expect(outOfRange.status == 64)
        }
    }

    /// kill -9 in the middle of a recording loses no committed entry; the next `sessions` closes the session.
    /// (Commits every second here, so that there are commits to lose; the default interval is 20 s.)
    @Test func aKilledRecorderLosesNoCommittedEntry() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Crash", "--source", "replay:sample?speed=4", "--commit-every", "1s"],
                database: db,
                folder: dir)
            #expect(try waitUntil(timeout: 20) { (try status(db)?.fixesReceived ?? 0) > 30 })
            // What another process can read now has been committed.
            let committed = try Store(path: db).summary(of: try Store(path: db).resolveSession("Crash")).entryCount
            #expect(committed > 0)
            kill(recorder.process.processIdentifier, SIGKILL)
            #expect(recorder.wait(timeout: 5) != nil)

            do {
                let store = try Store(path: db)
                defer { store.close() }
                #expect(try store.database.scalar("PRAGMA integrity_check")?.string == "ok")
                let session = try store.resolveSession("Crash")
                #expect(session.end == nil)
                #expect(try store.summary(of: session).entryCount >= committed)
            }
            let listed = try runGPSLog(["sessions"], database: db)
            #expect(listed.stderr.hasPrefix("note: closed session 'Crash'"))
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession("Crash")
            let last = try store.database.scalar(
                "SELECT MAX(TimeStamp) FROM Entries WHERE Session = ?", [.text(session.id)])?.int64
            #expect(session.end?.milliseconds == last)
            // The lock died with the process: a new recording may start.
            #expect(!RecordingLock.isHeld(database: db))
        }
    }

    /// The next `record` (not only `sessions`) closes a session a killed recorder left open, and says so.
    @Test func theNextRecordingClosesASessionLeftOpen() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Crash", "--source", "replay:sample?speed=4", "--commit-every", "1s"],
                database: db,
                folder: dir)
            #expect(try waitUntil(timeout: 20) { (try status(db)?.fixesReceived ?? 0) > 10 })
            kill(recorder.process.processIdentifier, SIGKILL)
            #expect(recorder.wait(timeout: 5) != nil)
            #expect(try Store(path: db).resolveSession("Crash").end == nil)

            let next = try runGPSLog(
                ["record", "--name", "Next", "--source", "replay:sample?speed=0", "--geocode", "off"], database: db)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(next.stderr.contains("closed session 'Crash'"))
            let store = try Store(path: db)
            defer { store.close() }
            let crashed = try store.resolveSession("Crash")
            let last = try store.database.scalar(
                "SELECT MAX(TimeStamp) FROM Entries WHERE Session = ?", [.text(crashed.id)])?.int64
            #expect(crashed.end != nil)
            #expect(crashed.end?.milliseconds == last)
            #expect(try store.resolveSession("Next").end != nil)
        }
    }
}

/// A disk that fills up (here: a file-size limit, which fails writes with EFBIG as a full disk fails them with
/// ENOSPC) stops the recording with a clear error and leaves the database intact.
@Suite(.ownThreads)
struct FullDiskTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
    func aFullDiskStopsTheRecordingCleanly() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Kept"], database: db).status == 0)
            let before = try runGPSLog(["show", "Kept", "--json"], database: db).stdout
            // 64 KiB: room for the 32 KiB WAL index (-shm) but not for the recording's WAL frames. A limit that
            // depends on the database's size would let the recording fit as the schema grows.
            let r = try runGPSLog(
                [
                    "record", "--name", "Overflow", "--source", "replay:sample?speed=0", "--interval", "0", "--geocode",
                    "off",
                ], database: db,
                launcher: ["/usr/bin/prlimit", "--fsize=65536"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("Error: cannot write to \(db): disk I/O error. The recording stopped;"))
            #expect(!r.stderr.contains("Fatal"))
            let store = try Store(path: db)
            defer { store.close() }
            #expect(try store.database.scalar("PRAGMA integrity_check")?.string == "ok")
            #expect(try runGPSLog(["show", "Kept", "--json"], database: db).stdout == before)
        }
    }
}
