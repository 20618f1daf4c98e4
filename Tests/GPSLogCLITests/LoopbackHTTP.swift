// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// A plain HTTP/1.1 client over a TCP socket bound to a chosen loopback source address (every 127.x.y.z is this
/// machine on Linux), so tests can be many clients, and send what browsers send (any Host, Origin, Content-Type).
enum LoopbackHTTP {
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A connected socket from `source` to 127.0.0.1:`port`; nil when bind or connect fails.
    static func connect(from source: String, port: Int, timeoutSeconds: Int = 120) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafePointer(to: &local) { l in
            withUnsafePointer(to: &remote) { r in
                l.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } == 0
                    && r.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) } == 0
            }
        }
        guard ok else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Sends all of `bytes`; false when the connection is gone.
    @discardableResult static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// One request on its own connection (`Connection: close`), read to the end. `Host` is 127.0.0.1:PORT unless
    /// `headers` names one. Throws when the server closes or resets the connection without an answer.
    static func request(
        _ method: String, _ path: String, port: Int, from source: String = "127.0.0.1",
        headers: [(String, String)] = [], body: String = ""
    ) throws -> Answer {
        guard let fd = connect(from: source, port: port) else {
            throw Failure(description: "cannot connect from \(source) to port \(port): errno \(errno)")
        }
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: 127.0.0.1:\(port)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        guard send(fd, Array((head + body).utf8)) else {
            throw Failure(description: "the server closed the connection before \(method) \(path) was sent")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 && received.isEmpty {
                throw Failure(description: "no answer to \(method) \(path) (errno \(errno): reset or timed out)")
            }
            if n <= 0 { break }
            received.append(contentsOf: buffer[..<n])
        }
        return try parse(received)
    }

    /// `request` on a thread of its own (`onOwnThread`), so that the test's own thread of Swift's cooperative pool
    /// is not blocked.
    static func fetch(
        _ method: String, _ path: String, port: Int, from source: String = "127.0.0.1",
        headers: [(String, String)] = [], body: String = ""
    ) async throws -> Answer {
        try await onOwnThread { try request(method, path, port: port, from: source, headers: headers, body: body) }
    }

    static func parse(_ bytes: [UInt8]) throws -> Answer {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.firstRange(of: separator) else {
            throw Failure(description: "no answer: \(bytes.count) bytes without a complete header")
        }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[end.upperBound...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            body = dechunked(body)
        }
        return Answer(status: status, headers: headers, body: body)
    }

    static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        let crlf: [UInt8] = [13, 10]
        while let lineEnd = bytes[i...].firstRange(of: crlf) {
            let sizeText = String(decoding: bytes[i..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { break }
            out.append(contentsOf: bytes[start..<start + size])
            i = start + size + 2
            guard i < bytes.count else { break }
        }
        return out
    }

    /// Starts `gpslog serve --listen 127.0.0.1:0 ARGUMENTS` and returns it with its port.
    static func serve(_ arguments: [String], database: String, folder: String) async throws -> (BackgroundGPSLog, Int) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let serve = try BackgroundGPSLog(
            ["serve", "--listen", "127.0.0.1:0"] + arguments, database: database, folder: folder)
        _ = await waitUntilAsync(timeout: 60) {
            serve.stdout.contains("Listening on http://") || !serve.process.isRunning
        }
        let line = try #require(
            serve.stdout.split(separator: "\n").first { $0.hasPrefix("Listening on ") }, "serve: \(serve.stderr)")
        let port = try #require(Int(line.split(separator: ":")[2].prefix { $0.isNumber }))
        return (serve, port)
    }
}
