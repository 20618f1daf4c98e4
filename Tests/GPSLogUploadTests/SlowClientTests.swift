// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogTestSupport
import NIOCore
import Testing

/// Hardening finding 5: 300 connections sending one header byte a second stayed open indefinitely. Now a header
/// must be complete within 10 s, one address holds at most 16 connections and everyone at most 256, and a phone
/// posting meanwhile is served. Everything on loopback (127.0.0.x), bounded in count and time.
@Suite(.ownThreads, .serialized) struct SlowClientTests {
    /// A raw TCP connection from `source` to the server, for sending what no HTTP client would.
    final class RawConnection {
        let fd: Int32

        init?(from source: String, toPort port: Int) {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
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
                        && r.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } == 0
                }
            }
            guard ok else {
                close(fd)
                return nil
            }
        }

        deinit { close(fd) }

        /// Sends bytes; false once the server has closed the connection.
        @discardableResult func send(_ text: String) -> Bool {
            text.utf8CString.withUnsafeBufferPointer {
                Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL))
            } > 0
        }

        /// Which of `connections` the server closes (end of file or reset) within `seconds`, watched all at once.
        static func closedByServer(_ connections: [RawConnection], within seconds: Double) -> [Bool] {
            var closed = [Bool](repeating: false, count: connections.count)
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            repeat {
                var fds = connections.indices.filter { !closed[$0] }.map {
                    pollfd(fd: connections[$0].fd, events: Int16(POLLIN), revents: 0)
                }
                if fds.isEmpty { break }
                let left = max(
                    0,
                    Int32(
                        (deadline - ContinuousClock.now).components.attoseconds / 1_000_000_000_000_000
                            + (deadline - ContinuousClock.now).components.seconds * 1000))
                guard poll(&fds, nfds_t(fds.count), left) > 0 else { break }
                for p in fds where p.revents != 0 {
                    var byte: UInt8 = 0
                    if recv(p.fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0,
                        let i = connections.firstIndex(where: { $0.fd == p.fd })
                    {
                        closed[i] = true
                    }
                }
            } while ContinuousClock.now < deadline
            return closed
        }
    }

    /// A body that trickles in (a byte every two seconds, the server asking for more all along) is cut once the
    /// server has waited 60 s for it; the time a body waits while the server holds it back (other batches take the
    /// memory budget) is not counted against it.
    @Test func aTricklingBodyIsCutAtSixtySeconds() async throws {
        try await withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir, token: UploadTests.token)
            let port = try #require(Int(serve.url.split(separator: ":").last!.filter(\.isNumber)))
            let token = UploadTests.token
            // On a thread of its own: the loop blocks on poll(2) for a minute.
            let (closed, elapsed) = try await onOwnThread { () throws -> (Bool, Duration) in
                guard let c = RawConnection(from: "127.0.0.3", toPort: port) else { throw POSIXError(.ECONNREFUSED) }
                let started = ContinuousClock.now
                c.send(
                    "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Authorization: Bearer \(token)\r\nContent-Length: 100000\r\n\r\n{\"locations\":[")
                while ContinuousClock.now - started < .seconds(150) {
                    guard c.send(" ") else { return (true, ContinuousClock.now - started) }
                    if RawConnection.closedByServer([c], within: 2)[0] { return (true, ContinuousClock.now - started) }
                }
                return (false, ContinuousClock.now - started)
            }
            #expect(closed, "a body trickling for 150 s was not cut")
            #expect(elapsed >= .seconds(58), "cut after \(elapsed), before the body's 60 s")
            #expect(try serve.points().isEmpty)
        }
    }

    @Test func slowHeadersAreCutAtTenSecondsAndNoClientHoldsTheServer() async throws {
        try await withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir, token: UploadTests.token)
            let port = try #require(Int(serve.url.split(separator: ":").last!.filter(\.isNumber)))

            // One address: 16 connections are taken, the 4 beyond are closed at once.
            let greedy = (0..<20).compactMap { _ in RawConnection(from: "127.0.0.2", toPort: port) }
            try #require(greedy.count == 20)
            // A valid start, then a header value that never ends.
            let connected = ContinuousClock.now
            for c in greedy { c.send("POST / HTTP/1.1\r\nHost: x\r\nX-Slow: ") }
            let refusedAtOnce = RawConnection.closedByServer(greedy, within: 1)
            #expect(refusedAtOnce.filter { $0 }.count == 4)
            let held = greedy.indices.filter { !refusedAtOnce[$0] }.map { greedy[$0] }
            #expect(held.count == 16)

            // A phone posts meanwhile, and is served.
            var request = HTTPClientRequest(url: serve.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")  // as phones send it
            request.headers.add(name: "Authorization", value: "Bearer " + UploadTests.token)
            request.body = .bytes(ByteBuffer(string: #"{"locations":[]}"#))
            #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code == 200)

            // Trickling one byte a second keeps no connection past the header deadline (10 s).
            var open = held
            repeat {  // at least once: on a loaded machine the post above may outlast the deadline
                for c in open { c.send("a") }
                let closed = RawConnection.closedByServer(open, within: 1)
                open = open.indices.filter { !closed[$0] }.map { open[$0] }
            } while !open.isEmpty && ContinuousClock.now - connected < .seconds(16)
            #expect(open.isEmpty, "\(open.count) slow connections still open after 16 s")
            #expect(ContinuousClock.now - connected >= .seconds(8), "closed before the header deadline")

            // Many addresses: no more than 256 connections at once; the rest are closed at once.
            var many: [RawConnection] = []
            for a in 10..<40 {
                for _ in 0..<10 { if let c = RawConnection(from: "127.0.0.\(a)", toPort: port) { many.append(c) } }
            }
            try #require(many.count == 300)
            for c in many { c.send("POST / HTTP/1.1\r\nX-Slow: ") }
            let closedAtOnce = RawConnection.closedByServer(many, within: 1).filter { $0 }.count
            // (A crowded server then closes the rest within seconds: ServeSecurityTests.)
            #expect(closedAtOnce >= 44, "\(closedAtOnce) of 300 closed at once with a cap of 256")
            let closedLater = RawConnection.closedByServer(many, within: 15)
            #expect(closedLater.allSatisfy { $0 }, "slow connections outlived the deadline")
        }
    }
}
