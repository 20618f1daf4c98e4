// SPDX-License-Identifier: MIT
import Foundation

/// What a run of the real `gpslog` binary printed and how it exited.
public struct CommandResult: Sendable {
    public var stdout: String
    public var stderr: String
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
    process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [TestPaths.gpslogBinary] + arguments
    var env = ProcessInfo.processInfo.environment
    env["GPSLOG_DB"] = database
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input == nil ? FileHandle(forReadingAtPath: "/dev/null") : inPipe
    try process.run()
    if let input {
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
    }
    // Read both pipes before waiting, so a chatty child cannot block on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(
        stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
        status: process.terminationStatus)
}
