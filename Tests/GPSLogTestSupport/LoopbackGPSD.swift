// SPDX-License-Identifier: MIT
import Foundation

/// A TCP server on 127.0.0.1 that answers `?WATCH` as gpsd does (VERSION, DEVICES, WATCH), sends a few TPV
/// reports, and then goes silent without closing the connection: a hung gpsd, or one whose receiver is wedged.
/// Each connection's fixes come a minute after the previous connection's, so none looks like a repeat.
public final class LoopbackGPSD: @unchecked Sendable {
    // @unchecked: `accepted`, `open` and `stopped` are guarded by `lock`; the descriptors are set once, in init.
    /// The loopback port it listens on.
    public let port: Int
    private let listener: Int32
    private let fixesPerConnection: Int
    private let lock = NSLock()
    private var accepted = 0
    private var open: [Int32] = []
    private var stopped = false

    /// The first connection's first fix time; the n-th connection's fixes start n minutes later.
    public static let firstFix = "2026-05-01T08:00:00Z"

    /// Listens on `port` (a free one when nil) and serves connections on a thread of its own.
    public init(port: Int? = nil, fixesPerConnection: Int = 5) throws {
        self.fixesPerConnection = fixesPerConnection
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = in_port_t(UInt16(port ?? 0).bigEndian)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(fd, 8) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &len) }
        }
        listener = fd
        self.port = Int(UInt16(bigEndian: addr.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackGPSD"
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { lock.withLock { accepted } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return  // stopped
            }
            let number = lock.withLock {
                accepted += 1
                open.append(client)
                return accepted
            }
            let thread = Thread { [self] in serve(client, number: number) }
            thread.start()
        }
    }

    /// Waits for `?WATCH`, answers it, sends the fixes, then keeps the connection open and silent.
    private func serve(_ fd: Int32, number: Int) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !String(decoding: request, as: UTF8.self).contains("?WATCH") {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return }
            request += buffer[0..<n]
        }
        var lines = [
            #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"NMEA0183","flags":1,"native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"#,
            #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
        ]
        for i in 0..<fixesPerConnection {
            let second = (number - 1) * 60 + i
            let time = String(format: "2026-05-01T08:%02d:%02d.000Z", second / 60, second % 60)
            let lat = 52.85 + Double(second) * 0.0001
            lines.append(
                #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"\#(time)","ept":0.005,"lat":\#(lat),"lon":5.31,"altMSL":1.5,"eph":4.0,"epv":6.0,"track":0.0,"speed":11.1}"#
            )
        }
        let text = lines.map { $0 + "\r\n" }.joined()
        _ = text.withCString { write(fd, $0, strlen($0)) }
        // Silent from here on: the connection stays open until the client or `stop()` closes it.
    }

    /// Stops listening and closes every connection (call it: the serving threads keep the server alive).
    public func stop() {
        let fds: [Int32]? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            defer { open = [] }
            return open
        }
        guard let fds else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in fds {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }
}
