// SPDX-License-Identifier: MIT
import Foundation

/// A last word for SIGBUS. SQLite maps a WAL database's `-shm` index into memory; when a mapped page cannot be
/// backed (a full disk, a file cut short by another program) the kernel sends SIGBUS, whose default action kills
/// the process without a word (exit 135). With the guard installed the process writes one line saying which database
/// and what to do, and exits with status 1 as every other error does. Nothing more can be done safely from a signal
/// handler, and nothing more is needed: a process killed there leaves the database as a crash would, which SQLite is
/// made to survive.
public enum BusErrorGuard {
    /// Installs the handler with `message` (one line, newline included). A later call replaces the message.
    public static func install(message: String) {
        let bytes = Array(message.utf8)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        // The previous buffer is kept (a few hundred bytes once per database opened): a handler running now may be
        // reading it.
        busErrorMessage = UnsafeBufferPointer(buffer)
        signal(SIGBUS, onBusError)
    }
}

/// The line the handler writes; set before the handler is installed, so the handler only loads it.
nonisolated(unsafe) private var busErrorMessage: UnsafeBufferPointer<UInt8>?

/// Only async-signal-safe calls: write(2) and _exit(2).
private let onBusError: @convention(c) (Int32) -> Void = { _ in
    if let message = busErrorMessage { _ = write(STDERR_FILENO, message.baseAddress, message.count) }
    _exit(1)
}
