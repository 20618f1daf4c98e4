// SPDX-License-Identifier: MIT
import Foundation

/// One process the soak started (gpslog or a tool), run under GNU time so that how it ended (its status, or the
/// signal that killed it) and its peak resident size come from the kernel's `wait4`, whoever ends it. Output goes to
/// files in the soak's folder. Thread-safe.
///
/// Started with posix_spawn, the child opening its own output files, rather than with Foundation's `Process`: with
/// a dozen threads starting processes at once, a `Process` child once got a descriptor number that another thread
/// had meanwhile closed and reused for a read-only file as its standard output, and serve died of EBADF on its first
/// line (Foundation's own trap, not gpslog's).
public final class SoakChild: @unchecked Sendable {
    /// What it is, for the figures: `serve`, `record`, `import`, `sessions`...
    public let kind: String
    /// Its standard output's file, `folder/NAME.out`.
    public let stdoutPath: String
    /// Its standard error's file, `folder/NAME.err`.
    public let stderrPath: String
    /// GNU time's report, `folder/NAME.time` (`%M`: the peak resident size, KiB).
    public let timePath: String
    /// GNU time's process id; the command is its child.
    private let timePID: pid_t
    private let lock = NSLock()
    private var ended: Int32?
    private var killedBySoak = false
    /// The signals the soak sent it (SIGTERM to stop it, SIGKILL).
    private var sent: Set<Int32> = []
    private var sampledKiB = 0

    /// Starts `executable arguments` (the built gpslog when nil) with `GPSLOG_DB` set to `database`; output in
    /// `folder/NAME.out` and `.err`. Standard input is `/dev/null`, or the file `input`. The child leads a process
    /// group of its own (`killGroup`).
    public init(
        kind: String, executable: String? = nil, _ arguments: [String], database: String?, folder: String,
        name: String, input: String? = nil
    ) throws {
        self.kind = kind
        stdoutPath = folder + "/" + name + ".out"
        stderrPath = folder + "/" + name + ".err"
        timePath = folder + "/" + name + ".time"
        let argv = ["/usr/bin/time", "-f", "%M", "-o", timePath, executable ?? TestPaths.gpslogBinary] + arguments
        var env = ProcessInfo.processInfo.environment.withoutConfigFiles
        env["GPSLOG_DB"] = database
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] { strings.map { strdup($0) } + [nil] }
        let cArgv = cStrings(argv)
        let cEnvp = cStrings(env.map { "\($0.key)=\($0.value)" })
        defer { (cArgv + cEnvp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, cArgv, cEnvp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        timePID = pid
    }

    /// The process time runs (gpslog itself), once time has started it; nil before, or after it ended.
    public var pid: Int32? {
        let parent = timePID
        guard
            let text = try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8),
            let pid = text.split(separator: " ").first.flatMap({ Int32($0) })
        else { return nil }
        return pid
    }

    /// False once time has ended (reaped here, with its status).
    public var isRunning: Bool {
        lock.withLock {
            guard ended == nil else { return false }
            var status: Int32 = 0
            let r = waitpid(timePID, &status, WNOHANG)
            if r == timePID || (r < 0 && errno == ECHILD) { ended = status }
            return ended == nil
        }
    }

    /// time's own status as waitpid gave it, once it ended.
    private var timeStatus: Int32? { lock.withLock { ended } }

    /// What it wrote to standard output so far ("" when unreadable).
    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// What it wrote to standard error so far ("" when unreadable).
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// kill -9 of the command (not of time, which reports it); true when there was one to kill.
    @discardableResult public func kill9() -> Bool {
        guard let pid else { return false }
        sampleMemory()
        lock.withLock {
            killedBySoak = true
            sent.insert(SIGKILL)
        }
        return kill(pid, SIGKILL) == 0
    }

    /// Sends `signal` to the command (SIGTERM: a clean stop).
    public func send(_ signal: Int32) {
        guard let pid else { return }
        lock.withLock { _ = sent.insert(signal) }
        kill(pid, signal)
    }

    /// Kills the whole process group time leads (a browser and its helpers).
    public func killGroup() {
        lock.withLock {
            killedBySoak = true
            sent.insert(SIGKILL)
        }
        kill(-timePID, SIGKILL)
    }

    /// Reads the command's high-water mark of resident memory (`VmHWM`) while it runs.
    public func sampleMemory() {
        guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        else { return }
        lock.withLock { sampledKiB = max(sampledKiB, kib) }
    }

    /// Waits (polling, sleeping the calling thread) until it ends, up to `timeout` seconds; false if still running.
    public func wait(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { usleep(50_000) }
        return !isRunning
    }

    /// How it ended, once it has: from time's report.
    public var outcome: SoakOutcome {
        let text = (try? String(contentsOfFile: timePath, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").map(String.init)
        let peak = lines.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let (killed, sampled, signals) = lock.withLock { (killedBySoak, sampledKiB, sent) }
        var signal: Int32?
        let raw = timeStatus
        // time exits with the command's status (128 + N when signal N ended it).
        var status: Int32 = raw.map { ($0 & 0x7f) == 0 ? ($0 >> 8) & 0xff : -1 } ?? -1
        let (terminated, exited) = ("Command terminated by signal ", "Command exited with non-zero status ")
        for line in lines {
            if line.hasPrefix(terminated), let n = Int32(line.dropFirst(terminated.count)) { signal = n }
            if line.hasPrefix(exited), let n = Int32(line.dropFirst(exited.count)) { status = n }
        }
        if signal == nil, lines.isEmpty, let raw, raw & 0x7f != 0 {
            signal = raw & 0x7f  // time itself was killed (killGroup)
        }
        return SoakOutcome(
            status: signal == nil ? status : nil, signal: signal, killedBySoak: killed, sentSignals: signals,
            peakKiB: max(peak, sampled))
    }

    /// The text of a crash in its standard error, if any: a Swift runtime trap, a signal's backtrace, a corrupt
    /// database.
    public var crashText: String? {
        let err = stderr
        let marks = [
            "Fatal error", "Program crashed", "Segmentation fault", "Bus error", "Illegal instruction",
            "stack trace", "Backtrace", "disk image is malformed", "SQLITE_CORRUPT", "SQLITE_MISUSE",
            "Assertion failed",
        ]
        guard let mark = marks.first(where: { err.contains($0) }) else { return nil }
        let line = err.split(separator: "\n").first { $0.contains(mark) }.map(String.init) ?? mark
        return String(line.prefix(300))
    }

    deinit {
        if isRunning {
            kill(-timePID, SIGKILL)
            var status: Int32 = 0
            while waitpid(timePID, &status, 0) < 0 && errno == EINTR {}
        }
    }
}

/// How a soak child ended.
public struct SoakOutcome: Sendable, CustomStringConvertible {
    /// Its exit status, when it exited.
    public var status: Int32?
    /// The signal that ended it, when one did.
    public var signal: Int32?
    /// True when the soak sent it the kill -9.
    public var killedBySoak: Bool
    /// The signals the soak sent it.
    public var sentSignals: Set<Int32>
    /// Its peak resident size (time's, or the highest VmHWM sampled), KiB.
    public var peakKiB: Int

    /// Ended by a signal the soak did not send (SIGBUS, SIGSEGV, a trap, or a kill -9 from elsewhere). A SIGTERM
    /// the soak sent may end a process before it handles the signal (just started): that is the soak's.
    public var diedOfForeignSignal: Bool { signal.map { !sentSignals.contains($0) } ?? false }

    /// `signal N` (with ` (the soak's)` when the soak sent it), or `exit N` (-1 when unknown).
    public var description: String {
        if let signal { return "signal \(signal)\(sentSignals.contains(signal) ? " (the soak's)" : "")" }
        return "exit \(status ?? -1)"
    }
}
