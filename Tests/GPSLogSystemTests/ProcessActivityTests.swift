// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem
import Testing

/// What `status`, `mark` and `stop` read of a recorder that has not answered: real processes in each state.
struct ProcessActivityTests {
    /// A busy process gets on, a sleeping one does not, a stopped one says so, and a gone one is nil.
    @Test func busySleepingStoppedAndGoneProcessesAreToldApart() throws {
        // The loop checks the test runner is alive: it must not outlive a killed run.
        let busy = try start("/bin/sh", ["-c", "while kill -0 \(getpid()) 2>/dev/null; do :; done"])
        defer { kill(busy.processIdentifier, SIGKILL) }
        let first = try #require(ProcessActivity.of(pid: busy.processIdentifier))
        #expect(!first.isStopped)
        // Until the busy loop has used a clock tick (10 ms): the bound only ends a failure.
        var later = first
        let deadline = Date().addingTimeInterval(30)
        while later.cpuTicks == first.cpuTicks, Date() < deadline {
            later = try #require(ProcessActivity.of(pid: busy.processIdentifier))
        }
        #expect(later.cpuTicks > first.cpuTicks && first.progressed(to: later))

        kill(busy.processIdentifier, SIGSTOP)
        defer { kill(busy.processIdentifier, SIGCONT) }
        // The state changes when the signal is delivered, not when kill(2) returns.
        var stopped = later
        while !stopped.isStopped, Date() < deadline {
            stopped = try #require(ProcessActivity.of(pid: busy.processIdentifier))
        }
        #expect(stopped.isStopped && !stopped.isRunnable)
        #expect(!later.progressed(to: stopped))

        // A name with spaces and parentheses, as a process may set for itself, does not shift the fields.
        let dir = NSTemporaryDirectory() + "gpslog-activity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let odd = dir + "/a) R (b"
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: odd)
        let sleeping = try start(odd, ["1000"])
        defer { kill(sleeping.processIdentifier, SIGKILL) }
        var asleep = try #require(ProcessActivity.of(pid: sleeping.processIdentifier))
        while asleep.isRunnable, Date() < deadline {
            asleep = try #require(ProcessActivity.of(pid: sleeping.processIdentifier))
        }
        let again = try #require(ProcessActivity.of(pid: sleeping.processIdentifier))
        #expect(!asleep.isStopped && !asleep.isRunnable && !asleep.progressed(to: again))

        kill(sleeping.processIdentifier, SIGKILL)
        sleeping.waitUntilExit()
        #expect(ProcessActivity.of(pid: sleeping.processIdentifier) == nil)
        #expect(ProcessActivity.of(pid: 0) == nil && ProcessActivity.of(pid: -1) == nil)
    }

    /// Started as the test's child; it inherits the test's blocked signals (SIGTERM among them), so it is ended
    /// with SIGKILL.
    private func start(_ path: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        return process
    }
}
