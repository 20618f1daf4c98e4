// SPDX-License-Identifier: MIT
import Foundation

/// A real gpsd, fed a recorded log by gpsfake (Debian's gpsd-clients), listening on a free loopback port.
public final class GPSFake {
    public let port: Int
    private let process: Process

    /// True when gpsfake and gpsd are installed.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake")
            && (FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd") || FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsd"))
    }

    /// Starts replaying `log` once, `cycle` seconds between sentences.
    public init(log: String, cycle: Double = 0.002, port: Int? = nil) throws {
        self.port = try port ?? freeLoopbackPort()
        process = Process()
        // gpsfake is Python and needs the system interpreter's `gps` module, whatever python3 is first on PATH.
        // Foundation starts the child as a process-group leader, so gpsfake and the gpsd it starts are killed
        // together in stop() (gpsfake ignores SIGTERM while it lingers).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["/usr/bin/gpsfake", "-1", "-q", "-P", String(self.port), "-c", String(cycle), log]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin:" + (env["PATH"] ?? "")
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
    }

    public func stop() {
        if process.isRunning {
            kill(-process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// A TCP port on 127.0.0.1 that nothing listens on right now (bind to port 0, read it back, close).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// A `gpslog` process running in the background (a recorder), with its output collected in files.
public final class BackgroundGPSLog {
    public let process = Process()
    public let stdoutPath: String
    public let stderrPath: String

    public init(_ arguments: [String], database: String, folder: String) throws {
        stdoutPath = folder + "/recorder.out"
        stderrPath = folder + "/recorder.err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: TestPaths.gpslogBinary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["GPSLOG_DB"] = database
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits for the process to exit, up to `timeout` seconds; returns its status, or nil if it is still running.
    public func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Polls `condition` every 50 ms until it is true or `timeout` seconds pass.
public func waitUntil(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(50_000)
    }
    return try condition()
}
