// SPDX-License-Identifier: MIT
import Foundation

/// What a loopback HTTP exchange of the soak gave: the status and the body, or why there was none.
public enum SoakHTTPResult: Sendable {
    case answered(status: Int, body: String)
    /// Refused, reset, or no complete answer before the deadline (a server killed or restarting).
    case failed(String)

    /// The HTTP status; nil when there was no answer.
    public var status: Int? {
        if case .answered(let status, _) = self { return status }
        return nil
    }

    /// The body (what came, for a stream); "" when there was no answer.
    public var body: String {
        if case .answered(_, let body) = self { return body }
        return ""
    }
}

/// One HTTP/1.1 request to 127.0.0.1:`port` on a socket of its own (`Connection: close`), blocking the calling
/// thread for at most `timeout` seconds. A plain client, so the soak's many threads need no event loop, and one
/// whose every byte and deadline the soak controls. `streamSeconds`: read a streamed answer (Server-Sent Events)
/// that long, then close; the status and what came count as the answer.
public func soakHTTP(
    _ method: String, port: Int, path: String, headers: [(String, String)] = [], body: String? = nil,
    timeout: Double = 30, streamSeconds: Double? = nil
) -> SoakHTTPResult {
    // Close-on-exec: the processes the soak starts meanwhile must not hold the connection open.
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .failed("socket: errno \(errno)") }
    defer { close(fd) }
    var slice = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &slice, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &slice, socklen_t(MemoryLayout<timeval>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return .failed("connect: errno \(errno)") }
    let deadline = Date().addingTimeInterval(timeout)
    let payload = Array((body ?? "").utf8)
    var lines = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { lines += "\(name): \(value)\r\n" }
    if body != nil { lines += "Content-Length: \(payload.count)\r\n" }
    let request = Array((lines + "\r\n").utf8) + payload
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n > 0 {
            sent += n
        } else if n < 0 && (errno == EAGAIN || errno == EINTR) && Date() < deadline {
            continue
        } else {
            return .failed("send: errno \(errno)")
        }
    }
    let streamEnd = streamSeconds.map { Date().addingTimeInterval($0) }
    var received = [UInt8]()
    var head: SoakHTTPHead?
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            received += buffer[..<n]
            if head == nil { head = SoakHTTPHead(received) }
            if let head, head.isComplete(received) { return head.result(received) }
        } else if n == 0 {
            break
        } else if errno != EAGAIN && errno != EINTR {
            return .failed("recv: errno \(errno) after \(received.count) bytes")
        }
        if let streamEnd, Date() >= streamEnd, let head { return head.result(received) }
        if Date() >= deadline { return .failed("no complete answer in \(Int(timeout)) s (\(received.count) bytes)") }
    }
    guard let head, head.length == nil || head.isComplete(received) || streamSeconds != nil else {
        return .failed("the connection closed after \(received.count) bytes, before a complete answer")
    }
    return head.result(received)
}

/// An answer's status line and how its body ends (a length, the last chunk, or the connection's end).
private struct SoakHTTPHead {
    var status: Int
    /// Where the body starts in the bytes read.
    var bodyStart: Int
    var length: Int?
    var chunked: Bool

    init?(_ bytes: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) })
        else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).lowercased().components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        func header(_ name: String) -> String? {
            lines.dropFirst().first { $0.hasPrefix(name + ":") }.map {
                String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
            }
        }
        self.status = status
        bodyStart = end + 4
        length = header("content-length").flatMap { Int($0) }
        chunked = header("transfer-encoding")?.contains("chunked") == true
    }

    /// True once the whole body is in `bytes` (never for a body that ends with the connection).
    func isComplete(_ bytes: [UInt8]) -> Bool {
        if let length { return bytes.count - bodyStart >= length }
        return chunked && bytes.count >= bodyStart + 5 && bytes.suffix(5).elementsEqual([48, 13, 10, 13, 10])
    }

    func result(_ bytes: [UInt8]) -> SoakHTTPResult {
        var body = Array(bytes[bodyStart...])
        if let length { body = Array(body.prefix(length)) } else if chunked { body = Self.dechunk(body) }
        return .answered(status: status, body: String(decoding: body, as: UTF8.self))
    }

    /// The body of a chunked answer (as far as it came).
    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var body = [UInt8]()
        var i = 0
        while let lineEnd = bytes[i...].indices.dropLast().first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) {
            let sizeText = String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            body += bytes[start..<min(bytes.count, start + size)]
            i = start + size + 2
            if i >= bytes.count { break }
        }
        return body
    }
}
