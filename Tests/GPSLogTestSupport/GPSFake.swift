// SPDX-License-Identifier: MIT
import Foundation

/// A real gpsd, fed a recorded log by gpsfake (Debian's gpsd-clients), listening on a free loopback port.
public final class GPSFake {
    /// The loopback port its gpsd listens on.
    public let port: Int
    private let process: Process

    /// True when gpsfake and gpsd are installed.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake")
            && (FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
                || FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsd"))
    }

    /// Starts replaying `log` once, `cycle` seconds between sentences, and returns when its gpsd accepts
    /// connections. gpsd cannot take a socket bound beforehand, so a free port is only free until gpsd binds it:
    /// when another process took it meanwhile, gpsfake exits, and a new port is tried (not when `port` is given).
    public init(log: String, cycle: Double = 0.002, port: Int? = nil) throws {
        var attempt = 0
        while true {
            attempt += 1
            let candidate = try port ?? freeLoopbackPort()
            let started = try GPSFake.start(log: log, cycle: cycle, port: candidate)
            if GPSFake.waitUntilListening(port: candidate, while: started) {
                self.port = candidate
                process = started
                return
            }
            if started.isRunning { kill(-started.processIdentifier, SIGKILL) }
            started.waitUntilExit()
            if port != nil || attempt >= 5 { throw POSIXError(.EADDRINUSE) }
        }
    }

    private static func start(log: String, cycle: Double, port: Int) throws -> Process {
        let process = Process()
        // gpsfake is Python and needs the system interpreter's `gps` module, whatever python3 is first on PATH.
        // Foundation starts the child as a process-group leader, so gpsfake and the gpsd it starts are killed
        // together in stop() (gpsfake ignores SIGTERM while it lingers).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["/usr/bin/gpsfake", "-1", "-q", "-P", String(port), "-c", String(cycle), log]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin:" + (env["PATH"] ?? "")
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.runClosingFiles()
        return process
    }

    /// True once something accepts TCP connections on the port, false if `process` ends first or 20 s pass.
    private static func waitUntilListening(port: Int, while process: Process) -> Bool {
        waitUntil(timeout: 20) { !process.isRunning || loopbackAccepts(port: port) } && process.isRunning
    }

    /// Kills gpsfake and its gpsd (SIGKILL to the process group) and waits for gpsfake to end.
    public func stop() {
        if process.isRunning {
            kill(-process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// A TCP port on 127.0.0.1 that nothing listens on right now. It is drawn below the kernel's ephemeral range
/// (32768 and up on Linux), where outgoing connections and other tests' port-0 binds take theirs, so it stays free
/// until the caller's server binds it far more often than a port-0 draw would; callers that cannot bind it
/// themselves still check (see `GPSFake`).
public func freeLoopbackPort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 20_000..<32_768)
        if canBindLoopback(port: port) { return port }
    }
    throw POSIXError(.EADDRINUSE)
}

private func canBindLoopback(port: Int) -> Bool { onLoopbackSocket(port: port) { bind($0, $1, $2) } }

/// True when a TCP connection to 127.0.0.1:port is accepted.
public func loopbackAccepts(port: Int) -> Bool { onLoopbackSocket(port: port) { connect($0, $1, $2) } }

/// Runs `call` (bind or connect) on a new TCP socket with 127.0.0.1:port, closes the socket, and says whether it
/// returned 0.
private func onLoopbackSocket(port: Int, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A `gpslog` process running in the background (a recorder), with its output collected in files.
public final class BackgroundGPSLog {
    /// The running `gpslog`.
    public let process = Process()
    /// Its standard output's file, `folder/recorder.out`.
    public let stdoutPath: String
    /// Its standard error's file, `folder/recorder.err`.
    public let stderrPath: String

    /// Starts `gpslog arguments` with `GPSLOG_DB` set to `database` (unset when nil) and `environment` added to this
    /// process's.
    public init(_ arguments: [String], database: String?, folder: String, environment: [String: String] = [:]) throws {
        stdoutPath = folder + "/recorder.out"
        stderrPath = folder + "/recorder.err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: TestPaths.gpslogBinary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.withoutConfigFiles
        env["GPSLOG_DB"] = database
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.runClosingFiles()
    }

    /// What it wrote to standard output so far ("" when unreadable).
    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// What it wrote to standard error so far ("" when unreadable).
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits for the process to exit, up to `timeout` seconds; returns its status, or nil if it is still running.
    public func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout * deadlineScale)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// How many times longer than written a test's wait may last before it counts as failed. A deadline bounds a
/// failure and is never the expected wait (every wait ends as soon as its condition holds), and a machine running
/// the whole suite, or a CPU hog beside it, stalls a process for far longer than a test run alone: a deadline that
/// held alone failed a clean-clone run. `GPSLOG_TEST_DEADLINE_SCALE` sets it (default 3).
public let deadlineScale: Double = {
    let given = ProcessInfo.processInfo.environment["GPSLOG_TEST_DEADLINE_SCALE"].flatMap(Double.init)
    return max(1, given ?? 3)
}()

/// Polls `condition` every 50 ms until it is true or `timeout` seconds (times `deadlineScale`) pass.
public func waitUntil(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout * deadlineScale)
    while Date() < deadline {
        if try condition() { return true }
        usleep(50_000)
    }
    return try condition()
}
