// SPDX-License-Identifier: MIT
import Foundation

// Tests that run many processes or wait for seconds await instead of blocking: a blocked test holds one of the
// threads of Swift's cooperative pool (two on a 2-core machine), and async tests beside it (a source's consumer task,
// a server) would wait for a thread meanwhile.

/// `runGPSLog`, awaiting the process's end instead of blocking a thread on it. Output goes through files in a
/// folder of its own under `folder`, so nothing has to be read while the process runs.
public func runGPSLogAsync(
    _ arguments: [String], database: String? = nil, environment: [String: String] = [:], folder: String
) async throws -> CommandResult {
    let runFolder = folder + "/run-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: runFolder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: runFolder) }
    let run = try BackgroundGPSLog(arguments, database: database, folder: runFolder, environment: environment)
    let status = await run.exitStatus(timeout: 600)
    return CommandResult(stdout: run.stdout, stderr: run.stderr, status: status ?? -1)
}

/// Runs blocking work (a socket's or a pipe's read) on a thread of its own and awaits it. Not on Dispatch's global
/// queue: in a full test run, reads blocked there starve its few threads, and work queued behind them (another test's
/// request, Foundation's news of a process's end) waited for minutes (a 300 s time limit exceeded at load 7).
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// `waitUntil`, sleeping 20 ms between tries instead of blocking the thread (the deadline scaled the same way).
public func waitUntilAsync(timeout: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout * deadlineScale)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

extension BackgroundGPSLog {
    /// `wait(timeout:)`, sleeping between looks instead of blocking the thread.
    /// The process's end is read from the kernel (`/proc/PID/stat`: gone, or a zombie), not only from Foundation,
    /// which learns of it on a Dispatch queue that a full test run can keep busy for many seconds; once the kernel
    /// says it has ended, Foundation gets a bounded while to report the status.
    public func exitStatus(timeout: Double) async -> Int32? {
        let pid = process.processIdentifier
        _ = await waitUntilAsync(timeout: timeout) { !process.isRunning || Self.hasEnded(pid) }
        if process.isRunning && Self.hasEnded(pid) {
            _ = await waitUntilAsync(timeout: 60) { !process.isRunning }
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// True when the kernel has no running process `pid` (none at all, or a zombie waiting to be reaped).
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // "pid (comm) state ...": the state follows the last ')' (comm may hold spaces and parentheses).
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[close...].dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
