// SPDX-License-Identifier: MIT
import Foundation

/// Calls `body` with `path` as a Unix socket address (for bind(2) and connect(2)); a leading `@` names an abstract
/// socket, as systemd writes them in `$NOTIFY_SOCKET`.
public func withUnixSocketAddress<Result>(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
}

/// A Unix stream socket connected to `path`, or nil when nothing listens there or, not `blocking`, its listening
/// queue is full.
public func connectToUnixSocket(_ path: String, blocking: Bool = true) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    if !blocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    guard withUnixSocketAddress(path, { connect(fd, $0, $1) }) == 0 else {
        close(fd)
        return nil
    }
    return fd
}
