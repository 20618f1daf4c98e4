// SPDX-License-Identifier: MIT
import Foundation

/// What another process is doing, read from `/proc` (Linux): whether it is stopped, whether any of its threads waits
/// for a CPU or the disk, and how much CPU time it has used. A client waiting for that process's answer tells a stopped or stuck
/// process from one that is only slow on a busy machine: the first never gets on, the second does.
public struct ProcessActivity: Equatable, Sendable {
    /// Stopped by a signal (SIGSTOP, Ctrl-Z: state T) or by a debugger (state t).
    public let isStopped: Bool
    /// At least one thread is running, waits for a CPU (state R), or waits for the disk (state D): a process that
    /// gets on as soon as the machine lets it.
    public let isRunnable: Bool
    /// User and system time of all its threads, in clock ticks.
    public let cpuTicks: UInt64

    /// The activity of `pid`, or nil when there is no such process (or no `/proc`).
    public static func of(pid: Int32) -> ProcessActivity? {
        guard pid > 0, let own = stat(path: "/proc/\(pid)/stat") else { return nil }
        // The process line's state is its main thread's: a thread of a multi-threaded process may run while the
        // main one sleeps, so each thread is looked at.
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let states = threads.compactMap { stat(path: "/proc/\(pid)/task/\($0)/stat")?.state }
        return ProcessActivity(
            isStopped: own.state == "T" || own.state == "t",
            isRunnable: ["R", "D"].contains(own.state) || states.contains { $0 == "R" || $0 == "D" },
            cpuTicks: own.ticks)
    }

    /// True when `later` shows that the process got on since `self`: it used CPU time or waits for a CPU.
    public func progressed(to later: ProcessActivity) -> Bool {
        !later.isStopped && (later.isRunnable || later.cpuTicks > cpuTicks)
    }

    /// The state letter and utime + stime of one `stat` file. The command name, in parentheses, may itself hold
    /// spaces and parentheses, so the fields are counted after its last `)` (proc(5)).
    private static func stat(path: String) -> (state: Character, ticks: UInt64)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the name: state (field 3), ..., utime (14), stime (15).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let state = fields[0].first, let user = UInt64(fields[11]),
            let system = UInt64(fields[12])
        else { return nil }
        return (state, user + system)
    }
}
