// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording
import GPSLogStore
import GPSLogTestSupport
import Testing

/// How long `status`, `mark` and `stop` wait for a recorder that has not answered: a slow one on a busy machine
/// (it keeps getting on) is waited for, a stuck one (it does not) is given up on after 5 s. The recorder here is the
/// test itself on the real control socket, with the lock naming a real process in each state.
@Suite(.ownThreads)
struct ControlPatienceTests {
    /// A recorder that answers after 8 s while its process keeps using CPU is waited for: `stop` used to give up
    /// after 5 s on a machine busy with a full test run, though the recorder then stopped.
    @Test func aSlowRecorderThatGetsOnIsWaitedFor() async throws {
        try await withTemporaryDirectory { dir in
            // The loop checks the test runner is alive: it must not outlive a killed run.
            let busy = try Self.start("/bin/sh", ["-c", "while kill -0 \(getpid()) 2>/dev/null; do :; done"])
            defer { kill(busy.processIdentifier, SIGKILL) }
            let recorder = try FakeRecorder(dir: dir, pid: busy.processIdentifier)
            recorder.answer(after: 8, with: ControlResponse(ok: false, error: "answered late"))
            let started = ContinuousClock.now
            let r = try await runGPSLogAsync(
                ["status"], database: recorder.database, environment: recorder.environment, folder: dir)
            #expect(r.status == 1 && r.stderr.contains("answered late"), "\(r.stderr)")
            #expect(ContinuousClock.now - started >= .seconds(8))
        }
    }

    /// A recorder whose process sleeps and never answers is stuck: the answer says so after 5 s and names it.
    @Test func aStuckRecorderIsGivenUpOnAndNamed() async throws {
        try await withTemporaryDirectory { dir in
            let sleeping = try Self.start("/bin/sleep", ["1000"])
            defer { kill(sleeping.processIdentifier, SIGKILL) }
            let pid = sleeping.processIdentifier
            let recorder = try FakeRecorder(dir: dir, pid: pid)
            let r = try await runGPSLogAsync(
                ["mark", "Here"], database: recorder.database, environment: recorder.environment, folder: dir)
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr.contains("(pid \(pid)) did not answer within 5 s: it is stuck"), "\(r.stderr)")
            #expect(r.stderr.contains("kill \(pid)"), "\(r.stderr)")
        }
    }

    /// A recorder asleep while another process holds the database's write lock waits for that lock (an import or a
    /// `delete` writing), and is waited for: a full test run's soak read such a recorder as stuck.
    @Test func aRecorderWaitingForTheWriteLockIsWaitedFor() async throws {
        try await withTemporaryDirectory { dir in
            let sleeping = try Self.start("/bin/sleep", ["1000"])
            defer { kill(sleeping.processIdentifier, SIGKILL) }
            let recorder = try FakeRecorder(dir: dir, pid: sleeping.processIdentifier)
            _ = try runTool("/usr/bin/sqlite3", [recorder.database, "CREATE TABLE t (x)"])
            // The lock, held for 12 s by a writer that checks the test runner is alive.
            let writer = try Self.start(
                "/bin/sh",
                [
                    "-c",
                    "(echo 'BEGIN IMMEDIATE; INSERT INTO t VALUES (1);'; sleep 12; echo 'COMMIT;') | /usr/bin/sqlite3 \(recorder.database)",
                ])
            defer { kill(writer.processIdentifier, SIGKILL) }
            #expect(waitUntil(timeout: 20) { Store.writeLockIsHeld(path: recorder.database) })
            recorder.answer(after: 8, with: ControlResponse(ok: false, error: "answered once it had the lock"))
            let started = ContinuousClock.now
            let r = try await runGPSLogAsync(
                ["mark", "Here"], database: recorder.database, environment: recorder.environment, folder: dir)
            #expect(r.stderr.contains("answered once it had the lock"), "\(r.stderr)")
            #expect(ContinuousClock.now - started >= .seconds(8))
        }
    }

    /// A recorder killed while a request is on its way (as `kill -9` does: the kernel closes its socket with the
    /// request unread, and the client reads a reset) or that ends after reading it (the client reads the end of the
    /// stream): the client says in words that the recorder ended before it answered, not NIO's read error.
    @Test(arguments: [true, false]) func aRecorderThatEndsMidRequestIsSaidInWords(unread: Bool) async throws {
        try await withTemporaryDirectory { dir in
            let recorder = try FakeRecorder(dir: dir, pid: getpid())
            recorder.endWithoutAnswer(leavingTheRequestUnread: unread)
            let r = try await runGPSLogAsync(
                ["mark", "Here"], database: recorder.database, environment: recorder.environment, folder: dir)
            #expect(r.status == 1, "\(r.stderr)")
            #expect(
                r.stderr.contains("ended before it answered, so this request may not have been done"), "\(r.stderr)")
            #expect(isPlainForPeople(r.stderr), "\(r.stderr)")
        }
    }

    /// Started as the test's child; it inherits the test's blocked signals (SIGTERM among them), so it is ended
    /// with SIGKILL.
    private static func start(_ path: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        return process
    }
}

/// The control socket and lock file of a recorder, held by the test: it accepts one connection, reads the request
/// line and answers when told to (or never).
private final class FakeRecorder: @unchecked Sendable {
    // @unchecked Sendable: `fd` is set once in init; the answering thread only reads it.
    let database: String
    let environment: [String: String]
    private let fd: Int32

    init(dir: String, pid: Int32) throws {
        database = dir + "/gpslog.sqlite"
        environment = ["XDG_RUNTIME_DIR": dir + "/runtime"]
        try "\(pid)\n".write(toFile: RecordingLock.path(forDatabase: database), atomically: true, encoding: .utf8)
        let path = ControlSocket.path(forDatabase: database, environment: environment)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = withUnixSocketAddress(path) { bind(fd, $0, $1) }
        guard fd >= 0, bound == 0, listen(fd, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(fd) }

    /// On a thread of its own: accepts, waits for the request, and closes without answering: with the request left
    /// unread (Linux then resets the client's end, as when the recorder is killed) or after reading it.
    func endWithoutAnswer(leavingTheRequestUnread unread: Bool) {
        let fd = fd
        Thread {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var ready = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, 60_000)
            guard !unread else { return }
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
        }.start()
    }

    /// On a thread of its own: accepts, reads up to the newline, waits `seconds` from the request, answers.
    func answer(after seconds: Double, with response: ControlResponse) {
        let fd = fd
        Thread {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
            // The slow recorder: its answer is late on purpose.
            Thread.sleep(forTimeInterval: seconds)
            guard var line = try? JSONEncoder().encode(response) else { return }
            line.append(UInt8(ascii: "\n"))
            _ = line.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        }.start()
    }
}
