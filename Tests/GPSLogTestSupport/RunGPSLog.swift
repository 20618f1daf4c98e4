// SPDX-License-Identifier: MIT
import Foundation

/// What a run of the real `gpslog` binary printed and how it exited.
public struct CommandResult: Sendable {
    /// Everything it wrote to standard output.
    public var stdout: String
    /// Everything it wrote to standard error.
    public var stderr: String
    /// Its exit status, or the signal's number when a signal ended it.
    public var status: Int32
}

/// Runs the built `gpslog` executable (as a user would), with `GPSLOG_DB` set to `database`.
/// Standard input is /dev/null unless `input` is given, so commands see a non-terminal.
/// `launcher` runs it under another program (`["/usr/bin/prlimit", "--fsize=100000"]`).
public func runGPSLog(
    _ arguments: [String], database: String? = nil, environment: [String: String] = [:], input: String? = nil,
    launcher: [String] = []
) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: launcher.first ?? TestPaths.gpslogBinary)
    process.arguments =
        launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [TestPaths.gpslogBinary] + arguments
    var env = ProcessInfo.processInfo.environment.withoutConfigFiles
    env["GPSLOG_DB"] = database
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    let inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input == nil ? FileHandle(forReadingAtPath: "/dev/null") : inPipe
    try process.runClosingFiles()
    if let input {
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
    }
    // Read both pipes before waiting, so a chatty child cannot block on a full pipe. The second on a thread of its
    // own, not Dispatch's global queue, whose few threads many blocked reads would starve (see `onOwnThread`).
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    Thread {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(
        stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
        status: process.terminationStatus)
}

/// Runs the built `gpslog` executable with `GPSLOG_DB` set to `database`, output to `outputPath` files
/// (`.out`, `.err`), and returns its exit status and its own peak resident size in bytes.
///
/// The peak is GNU time's (`/usr/bin/time -f %M`, which forks the command and reads `wait4`'s `ru_maxrss`), not this
/// process's `wait4` of a child it spawned: posix_spawn shares this process's memory until the exec (vfork), and
/// Linux then counts the larger of the two high-water marks as the child's, so a test process grown to 700 MB by the
/// tests beside it made every child look 700 MB large. `time`'s own is a few megabytes.
public func runGPSLogMeasuringMemory(_ arguments: [String], database: String, outputPath: String) throws -> (
    status: Int32, peakBytes: Int
) {
    var env = ProcessInfo.processInfo.environment.withoutConfigFiles
    env["GPSLOG_DB"] = database
    let rssPath = outputPath + ".rss"
    let argv = ["/usr/bin/time", "-f", "%M", "-o", rssPath, TestPaths.gpslogBinary] + arguments
    let envp = env.map { "\($0.key)=\($0.value)" }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, outputPath + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] { strings.map { strdup($0) } + [nil] }
    let cArgv = cStrings(argv)
    let cEnvp = cStrings(envp)
    defer { (cArgv + cEnvp).forEach { free($0) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, "/usr/bin/time", &actions, nil, cArgv, cEnvp)
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
    // GNU time exits with the command's status (128 + the signal when one killed it).
    let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    // The last line is the figure ("Command exited with non-zero status N" comes before it), in KiB.
    let text = (try? String(contentsOfFile: rssPath, encoding: .utf8)) ?? ""
    guard let kib = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
        throw POSIXError(.EIO)
    }
    return (exit, kib * 1024)
}

extension [String: String] {
    /// The environment with no config file or profile of the machine's: no `$GPSLOG_CONFIG` or `$GPSLOG_PROFILE`,
    /// and user and system files that do not exist. A test that wants a config file names its own.
    public var withoutConfigFiles: [String: String] {
        var env = self
        env["GPSLOG_CONFIG"] = nil
        env["GPSLOG_PROFILE"] = nil
        env["XDG_CONFIG_HOME"] = "/nonexistent/gpslog-tests/config"
        env["GPSLOG_SYSTEM_CONFIG"] = "/nonexistent/gpslog-tests/system.toml"
        return env
    }
}
