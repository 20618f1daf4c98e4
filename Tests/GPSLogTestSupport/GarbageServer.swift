// SPDX-License-Identifier: MIT
import Foundation

/// A loopback TCP server that answers every connection with bytes that are not MQTT, then closes it; counts them.
public final class GarbageServer: @unchecked Sendable {
    // @unchecked: `count` goes through `lock`; the descriptor is only closed in `stop`.
    /// The loopback port it listens on, chosen by the kernel.
    public let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var count = 0

    /// Listens on a free loopback port and answers connections on a thread of its own.
    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        guard listener >= 0, bound else {
            if listener >= 0 { close(listener) }
            throw POSIXError(.EADDRINUSE)
        }
        fd = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let garbage = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
        Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                lock.withLock { count += 1 }
                _ = garbage.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }.start()
    }

    /// Connections accepted so far.
    public var connections: Int { lock.withLock { count } }

    /// Stops listening.
    public func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
