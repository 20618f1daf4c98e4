// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `Type=notify`: the real binary, run as systemd runs it (`$NOTIFY_SOCKET`, `$WATCHDOG_USEC`), tells a Unix datagram
/// socket the test listens on that it is ready, alive, and how the recording goes.
@Suite(.ownThreads, .serialized)
struct ServiceNotifyTests {
    @Test func theRecorderSendsReadyWatchdogAndStatus() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let listener = try NotifyListener(path: dir + "/notify")
            let recorder = try BackgroundGPSLog(
                // A quarter of the sample's pace (10 minutes): the recording is still running when `stop` comes, however
                // long a loaded machine took to get there (at its own pace, 147 s, it once had ended by itself).
                ["record", "--name", "Service", "--source", "replay:sample?speed=0.25"], database: db, folder: dir,
                environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "2000000"])
            // A 2 s watchdog: WATCHDOG=1 every half of it while the recorder runs. Watch for 4 s after READY.
            // The deadline bounds a failure, not the wait: a machine busy with the rest of the suite may take long to
            // start the recorder, and `stop` must not be sent before it is ready.
            var messages = await listener.receive(until: 180) { $0.contains { $0.text.contains("READY=1") } }
            try #require(messages.contains { $0.text.contains("READY=1") }, "no READY=1: \(recorder.stderr)")
            messages += await listener.receive(until: 4) { _ in false }
            // The socket is read while `stop` runs: the kernel queues only a few datagrams (net.unix.max_dgram_qlen
            // is 10 here), and the recorder drops what does not fit rather than wait (MSG_DONTWAIT).
            async let stopped = runGPSLogAsync(["stop"], database: db, folder: dir)
            messages += await listener.receive(until: 60) { $0.contains { $0.text.contains("STOPPING=1") } }
            let stop = try await stopped
            #expect(stop.status == 0, "stop: \(stop.stderr)")
            let exit = await recorder.exitStatus(timeout: 30)
            #expect(exit == 0, "exit \(exit.map(String.init) ?? "none within 30 s"): \(recorder.stderr)")

            let texts = messages.map(\.text)
            let lines = texts.flatMap { $0.split(separator: "\n").map(String.init) }
            #expect(lines.filter { $0 == "READY=1" }.count == 1, "\(texts)")
            // READY comes with a status once the source is open, before any fix or after it, never twice.
            let ready = try #require(texts.firstIndex { $0.contains("READY=1") })
            #expect(texts[ready].contains("STATUS="))
            let pings = messages.filter { $0.text.contains("WATCHDOG=1") }.map(\.time)
            #expect(pings.count >= 4, "\(texts)")
            // Every half of the 2 s: the typical gap (a machine busy with other tests may stall a process for a
            // moment; systemd's real timeout, 30 s in the unit, allows for that).
            let gaps = zip(pings.dropFirst(), pings).map { $0.timeIntervalSince($1) }.sorted()
            #expect(gaps.count >= 3 && (0.9...1.5).contains(gaps[gaps.count / 2]), "watchdog gaps \(gaps)")
            let statuses = lines.filter { $0.hasPrefix("STATUS=") }
            #expect(statuses.contains { $0.hasPrefix("STATUS=fix ") && $0.contains(" entries, ") }, "\(statuses)")
            #expect(lines.contains("STOPPING=1"), "\(texts)")
        }
    }

    @Test func anAbstractSocketAndAWatchdogForAnotherProcess() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let name = "@gpslog-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let listener = try NotifyListener(path: name)
            // WATCHDOG_PID names another process: the watchdog is not ours to feed (sd_watchdog_enabled(3)).
            let recorder = try BackgroundGPSLog(
                ["record", "--name", "Abstract", "--source", "replay:sample?speed=0.25"], database: db, folder: dir,
                environment: ["NOTIFY_SOCKET": name, "WATCHDOG_USEC": "500000", "WATCHDOG_PID": "1"])
            let messages = await listener.receive(until: 180) { $0.contains { $0.text.contains("STATUS=fix ") } }
            #expect(try await runGPSLogAsync(["stop"], database: db, folder: dir).status == 0)
            let exit = await recorder.exitStatus(timeout: 30)
            #expect(exit == 0, "exit \(exit.map(String.init) ?? "none within 30 s"): \(recorder.stderr)")
            let text = messages.map(\.text).joined(separator: "\n")
            #expect(text.contains("READY=1") && text.contains("STATUS=fix "), "\(text)")
            #expect(!text.contains("WATCHDOG=1"))
        }
    }

    /// A `$NOTIFY_SOCKET` that names no socket is logged and ignored, and the log line cannot carry an escape
    /// sequence to the terminal that reads it.
    @Test func aNotifySocketThatNamesNoSocketIsLoggedEscaped() async throws {
        try await withTemporaryDirectory { dir in
            let server = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0"], database: dir + "/gpslog.sqlite", folder: dir,
                environment: ["NOTIFY_SOCKET": "none\u{1B}[31m"])  // neither a path nor abstract
            defer { kill(server.process.processIdentifier, SIGKILL) }
            #expect(await waitUntilAsync(timeout: 120) { server.stderr.contains("not reporting to systemd") })
            #expect(server.stderr.contains(#"none\u001B[31m"#), "\(server.stderr.visible)")
            #expect(!server.stderr.contains("\u{1B}"))
        }
    }

    @Test func serveIsReadyOnceItListens() async throws {
        try await withTemporaryDirectory { dir in
            let listener = try NotifyListener(path: dir + "/notify")
            let server = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0"], database: dir + "/gpslog.sqlite", folder: dir,
                environment: ["NOTIFY_SOCKET": listener.path])
            defer { kill(server.process.processIdentifier, SIGTERM) }
            // Until READY and its STATUS came, or serve ended: the deadline only bounds a failure.
            let messages = await listener.receive(until: 180) {
                !server.process.isRunning
                    || ($0.contains { $0.text.contains("READY=1") } && $0.contains { $0.text.contains("STATUS=") })
            }.map(\.text)
            #expect(messages.joined().contains("READY=1"), "\(server.stderr)")
            // The port it announces is the one it listens on (it was 0 on the command line).
            _ = await waitUntilAsync(timeout: 60) { server.stdout.contains("Listening on") }
            let port = try #require(server.stdout.split(separator: ":").last?.split(separator: "/").first)
            #expect(messages.joined().contains("STATUS=listening on 127.0.0.1:\(port)"), "\(messages)")
        }
    }
}

/// A Unix datagram socket bound where `$NOTIFY_SOCKET` points (a path, or `@name` for an abstract socket), as
/// systemd's own notify socket is. A thread of its own drains it as datagrams arrive: the kernel queues only a few
/// (net.unix.max_dgram_qlen is 10 here) and the sender drops what does not fit, so a reader on Swift's cooperative
/// pool, which the rest of a full test run can starve for many seconds, lost the READY=1 of a clean-clone run.
final class NotifyListener: @unchecked Sendable {
    // @unchecked Sendable: `arrived`, `taken` and `stopped` are used under `lock` only; `fd` is closed in deinit,
    // when the draining thread holds no reference and so is not reading it.
    let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var arrived: [(time: Date, text: String)] = []
    private var taken = 0
    private var stopped = false

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        let bound = withUnixSocketAddress(path) { bind(fd, $0, $1) }
        guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
        // Weakly held: the listener goes when the test lets it go, and the thread ends at its next look.
        let thread = Thread { [weak self] in
            while let listener = self, listener.drainOnce() {}
        }
        thread.name = "NotifyListener"
        thread.start()
    }

    /// Reads the datagrams that came within 100 ms (poll(2)); false once the listener is being torn down.
    private func drainOnce() -> Bool {
        if lock.withLock({ stopped }) { return false }
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, 100) > 0 {
            while let message = receiveOne() { lock.withLock { arrived.append(message) } }
        }
        return true
    }

    /// The datagrams that arrived since the last call and arrive now, each with the kernel's time of its arrival
    /// (SO_TIMESTAMP, so a test that is slow to look does not stretch the gaps between them), until `done` says so
    /// or `seconds` pass.
    func receive(until seconds: Double, done: ([(time: Date, text: String)]) -> Bool) async -> [(
        time: Date, text: String
    )] {
        let deadline = Date().addingTimeInterval(seconds)
        var messages: [(time: Date, text: String)] = []
        while true {
            messages += lock.withLock {
                defer { taken = arrived.count }
                return Array(arrived[taken...])
            }
            if done(messages) || Date() >= deadline { return messages }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// One datagram and its SCM_TIMESTAMP, or nil when none waits.
    private func receiveOne() -> (time: Date, text: String)? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // A cmsghdr, then the timeval, aligned to the size of size_t (what CMSG_DATA computes).
        let headerSize = (MemoryLayout<cmsghdr>.size + 7) & ~7
        var control = [UInt8](repeating: 0, count: headerSize + MemoryLayout<timeval>.size + 16)
        let n = buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { control in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vector in
                    var header = msghdr()
                    header.msg_iov = vector
                    header.msg_iovlen = 1
                    header.msg_control = control.baseAddress
                    header.msg_controllen = control.count
                    return recvmsg(fd, &header, Int32(MSG_DONTWAIT))
                }
            }
        }
        guard n > 0 else { return nil }
        let (level, type) = control.withUnsafeBytes {
            ($0.load(as: cmsghdr.self).cmsg_level, $0.load(as: cmsghdr.self).cmsg_type)
        }
        var time = Date()
        if level == SOL_SOCKET && type == SO_TIMESTAMP {
            let tv = control.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: headerSize, as: timeval.self) }
            time = Date(timeIntervalSince1970: Double(tv.tv_sec) + Double(tv.tv_usec) / 1e6)
        }
        return (time, String(decoding: buffer[..<n], as: UTF8.self))
    }

    deinit {
        // No strong reference is left, so the thread is not reading the socket: it ends at its next look.
        lock.withLock { stopped = true }
        close(fd)
        if !path.hasPrefix("@") { unlink(path) }
    }
}
