// SPDX-License-Identifier: MIT
import NIOCore
import NIOPosix

/// A thread of its own for an actor that owns a `Store`: the actor's jobs run there, never on Swift's cooperative
/// pool. SQLite calls block (a commit's fsync, up to `Store.busyTimeoutMilliseconds` waiting for another process's
/// lock), and the pool has one thread per core: a blocked call there stalls every other task of the process (the
/// control socket, the HTTP server, the sender).
///
/// Why an event loop: SwiftNIO's loops are serial executors already (`EventLoop.executor`), with their own thread;
/// this one serves no I/O, so blocking it delays nothing but the actor that runs on it.
///
/// ```swift
/// actor SessionRecorder {
///     let thread = StoreThread()
///     nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }
/// }
/// ```
public final class StoreThread: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop

    /// Starts the thread (an event loop of its own); end it with `shutdown`.
    public init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
    }

    /// The executor of an actor pinned to this thread.
    public var executor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    /// True on this thread (tests, and preconditions of code that must not run elsewhere).
    public var isCurrent: Bool { loop.inEventLoop }

    /// Ends the thread once the jobs queued on it have run. Nothing may be scheduled on it afterwards.
    public func shutdown() async {
        try? await group.shutdownGracefully()
    }

    deinit {
        // A thread left running by a caller that forgot `shutdown` (or threw before it) is stopped here.
        group.shutdownGracefully { _ in }
    }
}
