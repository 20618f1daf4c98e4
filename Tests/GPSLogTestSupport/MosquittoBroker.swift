// SPDX-License-Identifier: MIT
import Foundation

/// A real Eclipse Mosquitto broker (Debian's `mosquitto`, installed by `make test`) on a random loopback port, with
/// a configuration the test writes: anonymous, or with one user and password; no persistence.
public final class MosquittoBroker {
    /// The loopback port it listens on.
    public let port: Int
    private let process: Process
    /// The path of its log file, `folder/mosquitto.log` (`logText` reads it).
    public let log: String

    /// True when the broker and its command-line clients are installed.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
    }

    /// Starts a broker in `folder`; with `user`, only that user and `password` may connect. Returns once it accepts
    /// connections (a port taken meanwhile by another process is retried on a new one).
    /// `port`: this one (a broker restarted where its clients expect it).
    /// `listenerOptions`: lines for the listener (TLS: `cafile`, `certfile`, `keyfile`, `require_certificate`).
    /// `extraConfig`: lines after the rest, which win (`allow_anonymous false`, `password_file`, `acl_file`).
    public init(
        folder: String, user: String? = nil, password: String? = nil, port wanted: Int? = nil,
        listenerOptions: String = "", extraConfig: String = ""
    ) throws {
        log = folder + "/mosquitto.log"
        // Run as root (CI), mosquitto would switch to its own user and lose the test's private folder: stay.
        var config = "persistence false\nlog_dest file \(log)\nlog_type all\nuser \(NSUserName())\n"
        if let user, let password {
            let file = folder + "/mosquitto.passwd"
            let made = Process()
            made.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
            made.arguments = ["-b", "-c", file, user, password]
            try made.run()
            made.waitUntilExit()
            guard made.terminationStatus == 0 else { throw POSIXError(.EINVAL) }
            config += "allow_anonymous false\npassword_file \(file)\n"
        } else {
            config += "allow_anonymous true\n"
        }
        config += extraConfig
        for _ in 0..<5 {
            let candidate = try wanted ?? freeLoopbackPort()
            let path = folder + "/mosquitto-\(candidate).conf"
            try ("listener \(candidate) 127.0.0.1\n" + listenerOptions + config).write(
                toFile: path, atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
            p.arguments = ["-c", path]
            p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            p.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try p.runClosingFiles()
            if waitUntil(timeout: 10, { loopbackAccepts(port: candidate) || !p.isRunning }), p.isRunning {
                port = candidate
                process = p
                return
            }
            // SIGKILL: a child of the test inherits its blocked signals, SIGTERM among them.
            if p.isRunning { Foundation.kill(p.processIdentifier, SIGKILL) }
            p.waitUntilExit()
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// The broker's log (for failure messages).
    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Stops the broker (SIGKILL: no goodbye to the clients, as a crash or a pulled cable).
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { kill() }
}

/// Runs `mosquitto_sub` or `mosquitto_pub` with `arguments` and returns its output and status.
public func runMosquittoClient(_ tool: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.runClosingFiles()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), p.terminationStatus)
}
