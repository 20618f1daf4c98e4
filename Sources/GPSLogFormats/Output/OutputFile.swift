// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// Somewhere export bytes go: the output itself (`OutputFile`) or bytes set aside to be copied in later
/// (`ScratchFile`).
public protocol ByteSink: AnyObject {
    /// Appends through a closure that writes into the sink's buffer directly.
    func append(_ body: (inout [UInt8]) -> Void) throws
}

extension ByteSink {
    /// Appends text.
    public func write(_ text: String) throws { try append { $0.append(contentsOf: text.utf8) } }
}

/// Where an export goes: a file written whole or not at all, or standard output.
///
/// A file is written to a private temporary file (mode 0600, user data) beside the destination and renamed over it
/// by `commit()`; if the export fails the temporary file is removed, so nothing half-written is left. Bytes are
/// buffered (64 KiB) and written with write(2).
public final class OutputFile: ByteSink {
    /// The destination path, or "-" for standard output.
    public let path: String
    /// The descriptor to write to (the temporary file's, or stdout's).
    public let descriptor: Int32
    private let temporaryPath: String?
    private var buffer: [UInt8] = []
    private var committed = false

    /// Opens `path` ("-" is standard output) for writing.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            temporaryPath = nil
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            let name = (path as NSString).lastPathComponent
            // Unique per OutputFile, not just per process: a convert that falls back opens a second one for the same
            // destination while the first may still be on its way out.
            let temp =
                (folder.isEmpty ? "." : folder) + "/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
            do {
                descriptor = try systemCall { open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
            } catch {
                throw ExportError.cannotWrite(path: path, reason: error.reason)
            }
            temporaryPath = temp
        }
        buffer.reserveCapacity(1 << 16)
    }

    deinit {
        if let temporaryPath {
            if !committed {
                close(descriptor)
                unlink(temporaryPath)
            }
        }
    }

    /// Appends bytes.
    @inline(__always) public func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Appends text.
    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Appends through a closure that writes into the buffer directly (the hot path: no intermediate arrays).
    @inline(__always) public func append(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Writes the buffered bytes out.
    public func flush() throws {
        try OutputFile.writeAll(descriptor, buffer, path: path)
        buffer.removeAll(keepingCapacity: true)
    }

    /// write(2) until every byte is out (see `GPSLogSystem.writeAll`); the error names `path`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        do {
            try bytes.withUnsafeBytes { try GPSLogSystem.writeAll(fd, $0) }
        } catch let error as SystemCallError {
            throw ExportError.cannotWrite(path: path, reason: error.reason)
        }
    }

    /// Flushes and moves the finished file into place (for stdout: flushes).
    public func commit() throws {
        try flush()
        guard let temporaryPath else { return }
        do throws(SystemCallError) {
            try systemCall { fsync(descriptor) }
            // close(2) is not retried on EINTR: on Linux the descriptor is gone whatever it returns.
            if close(descriptor) != 0 { throw SystemCallError(code: errno) }
        } catch {
            throw ExportError.cannotWrite(path: path, reason: error.reason)
        }
        committed = true
        do {
            try systemCall { rename(temporaryPath, path) }
        } catch {
            unlink(temporaryPath)
            throw ExportError.cannotWrite(path: path, reason: error.reason)
        }
    }
}

@available(*, unavailable)
extension OutputFile: Sendable {}
