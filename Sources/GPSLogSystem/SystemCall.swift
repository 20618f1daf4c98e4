// SPDX-License-Identifier: MIT
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A system call that failed: its errno, and the C library's words for it (`strerror`).
public struct SystemCallError: Error, Equatable, CustomStringConvertible {
    /// The errno the call set (`ENOENT`, `ENOSPC`, ...).
    public let code: Int32

    /// Wraps an errno value.
    public init(code: Int32) { self.code = code }

    /// `strerror`'s text: "No such file or directory", "No space left on device", ...
    public var reason: String { String(cString: strerror(code)) }
    /// `strerror`'s text alone, e.g. "No space left on device".
    public var description: String { reason }
}

/// Runs a system call the way every caller must: again while a signal interrupts it (EINTR), and a result of -1
/// thrown as `SystemCallError` with errno read at once (before anything else can change it). The one place these
/// loops are written (as swift-nio's `syscall` in NIOPosix's System.swift); callers turn the error into their own,
/// naming the file.
///
/// ```swift
/// let fd = try systemCall { open(path, O_RDONLY | O_CLOEXEC) }
/// let n = try systemCall { read(fd, buffer, count) }
/// ```
@inline(__always)
@discardableResult
public func systemCall<T: FixedWidthInteger>(_ body: () -> T) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code != EINTR { throw SystemCallError(code: code) }
    }
}

/// Writes every byte with `write` (retrying on EINTR and short writes; `pwrite` when `offset` is given).
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) throws(SystemCallError) {
    var done = 0
    while done < bytes.count {
        let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
        let n =
            if let offset {
                try systemCall { pwrite(fd, rest.baseAddress, rest.count, off_t(offset + Int64(done))) }
            } else {
                try systemCall { write(fd, rest.baseAddress, rest.count) }
            }
        done += n
    }
}

/// Creates a scratch file in `folder` that no other process can open: mode 0600 (`mkstemp`), and unlinked at once,
/// so it holds user data without a name and nothing is left behind, even by a crash. Returns its descriptor.
public func unlinkedScratchFile(in folder: String, prefix: String) throws(SystemCallError) -> Int32 {
    var template = Array((folder + "/" + prefix + "-XXXXXX").utf8CString)
    let fd = try template.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) in
        try systemCall { mkstemp(buffer.baseAddress!) }
    }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
}
