// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The seams of `gpslog serve` as an attacker or a browser meets them, end to end against a real `serve` on a random
/// loopback port: a web page posting into a token-less serve (cross-site forms, `no-cors` fetches, DNS rebinding),
/// receiver paths shadowed by the web view's routes, the view's token and its login, and slow connections from
/// many addresses crowding out a phone.
@Suite(.ownThreads, .serialized) struct ServeSecurityTests {
    /// A one-location Overland batch at second `second` of 2024-05-01 10:00.
    static func batch(_ second: Int, device: String = "phone") -> String {
        let time = String(format: "2024-05-01T10:%02d:%02dZ", second / 60 % 60, second % 60)
        return #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5.1,52.1]},"#
            + #""properties":{"timestamp":"\#(time)","device_id":"\#(device)"}}]}"#
    }

    /// How many track points the database's sessions hold, as `gpslog sessions --json` counts them.
    static func storedPoints(_ db: String, folder: String) async throws -> Int {
        let r = try await runGPSLogAsync(["sessions", "--json"], database: db, folder: folder)
        try #require(r.status == 0, "\(r.stderr)")
        let sessions = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        return sessions.reduce(0) { $0 + ($1["trackPoints"] as? Int ?? 0) }
    }

    static let json = ("Content-Type", "application/json")

    // MARK: - A share link's token stays out of the log

    /// A share link (`/s/TOKEN`) opens its session by its token alone, so a refused POST or a failed request under it
    /// is logged with the token hidden.
    @Test(.timeLimit(.minutes(5)))
    func aShareLinksTokenIsNotLogged() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let imported = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            let shared = try await runGPSLogAsync(["share", "bf78"], database: db, folder: dir)
            try #require(shared.status == 0, "\(shared.stderr)")
            let link = try #require(shared.stdout.split(separator: "\n").last.map(String.init))
            let token = try #require(link.split(separator: "/").last.map(String.init))
            let (serve, port) = try await LoopbackHTTP.serve(
                ["--token", "serve-token-0123456789"], database: db, folder: dir + "/serve")
            defer { kill(serve.process.processIdentifier, SIGKILL) }
            for (path, headers) in [
                ("/s/\(token)", [("Content-Type", "text/plain")]), ("/s/\(token)/api/x", [Self.json]),
                ("/s/\(token)", [Self.json, ("Authorization", "Bearer wrong")]),
            ] {
                let answer = try await LoopbackHTTP.fetch("POST", path, port: port, headers: headers, body: "{}")
                #expect(answer.status >= 400, "\(path): \(answer.status)")
            }
            #expect(
                await waitUntilAsync(timeout: 60) { serve.stderr.contains("refused a POST to /s/***") },
                "\(serve.stderr)")
            #expect(!serve.stderr.contains(token) && !serve.stdout.contains(token), "\(serve.stderr)")
        }
    }

    // MARK: - A web page cannot post into a token-less serve

    @Test(.timeLimit(.minutes(5)))
    func aWebPageOfAnotherSiteCannotStoreLocations() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            let evil = ("Origin", "http://evil.example")
            // What a page can make the browser send without a preflight, and DNS rebinding (the page's own host
            // name pointed at 127.0.0.1: same-origin for the browser, but its Host names that host).
            let attacks: [(String, [(String, String)], Int)] = [
                ("an HTML form, enctype=text/plain", [evil, ("Content-Type", "text/plain")], 403),
                (
                    "fetch no-cors",
                    [evil, ("Content-Type", "text/plain;charset=UTF-8"), ("Sec-Fetch-Site", "cross-site")], 403
                ),
                (
                    "a form from a sandboxed frame",
                    [("Origin", "null"), ("Content-Type", "application/x-www-form-urlencoded")], 403
                ),
                ("an old browser's form, no Origin", [("Content-Type", "text/plain")], 415),
                ("a multipart form, no Origin", [("Content-Type", "multipart/form-data; boundary=x")], 415),
                ("a body with no type", [], 415),
                ("a page of the same host on another port", [("Origin", "http://127.0.0.1:3000"), Self.json], 403),
                ("Sec-Fetch-Site alone", [("Sec-Fetch-Site", "same-site"), Self.json], 403),
                (
                    "DNS rebinding",
                    [("Host", "evil.example:\(port)"), ("Origin", "http://evil.example:\(port)"), Self.json], 403
                ),
                ("a rebinding without Origin", [("Host", "evil.example:\(port)"), Self.json], 403),
            ]
            for (n, (what, headers, expected)) in attacks.enumerated() {
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/", port: port, headers: headers, body: Self.batch(n))
                #expect(answer.status == expected, "\(what): \(answer.status) \(answer.text)")
                #expect(answer.text.contains("\"error\""), "\(what): a JSON error")
            }
            #expect(try await Self.storedPoints(db, folder: dir) == 0, "nothing stored from a web page")
            #expect(serve.stderr.contains("evil.example"), "the refusals are logged")

            // What phones and scripts send is taken: Overland's type, OwnTracks' (with its charset), and a
            // same-origin Origin; by 127.0.0.1, localhost and [::1].
            let phones: [[(String, String)]] = [
                [Self.json],
                [("Content-Type", "application/json; charset=utf-8"), ("Host", "localhost:\(port)")],
                [Self.json, ("Host", "[::1]:\(port)")],
                [Self.json, ("Origin", "http://127.0.0.1:\(port)")],
            ]
            for (n, headers) in phones.enumerated() {
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/", port: port, headers: headers, body: Self.batch(100 + n))
                #expect(answer.status == 200 && answer.text == #"{"result":"ok"}"#, "\(headers): \(answer.text)")
            }
            #expect(try await Self.storedPoints(db, folder: dir) == phones.count)
        }
    }

    // MARK: - Every documented receiver URL takes a POST, with the web view on and off

    /// The receiver paths the README and the guide in docs/ document (the URLs given to `upload --url`, `record
    /// --send`, the config's `send =`/`url =`, and "point the app at"), and those the receiver's own documentation
    /// names.
    static func documentedPaths() throws -> [String] {
        let root = TestPaths.packageRoot
        let pages =
            ["README.md"]
            + (try FileManager.default.subpathsOfDirectory(atPath: root + "/docs"))
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let readme = try pages.map { try String(contentsOfFile: root + "/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
        var paths = Set(["/", "/overland", "/owntracks", "/pub"])
        for match in readme.matches(of: /(?:--url|--send|send =|url =|at `)\s*"?(https?:\/\/[^\s"`]+)/) {
            guard let url = URLComponents(string: String(match.1).replacingOccurrences(of: "%", with: "%25")) else {
                continue
            }
            paths.insert(url.path.isEmpty ? "/" : url.path)
        }
        return paths.sorted()
    }

    @Test(.timeLimit(.minutes(10)))
    func everyDocumentedReceiverURLTakesAPostWithTheViewOnAndOff() async throws {
        try await withTemporaryDirectory { dir in
            let documented = try Self.documentedPaths()
            #expect(documented.contains("/api/overland") && documented.contains("/api/webhook/ID"))
            // Paths the view's routes own for GET: a POST there is still the receiver's.
            let viewPaths = [
                "/api/sessions", "/api/sessions/x/marks", "/sessions/x", "/static/app.js", "/lib/leaflet/x",
            ]
            for view in [true, false] {
                let db = dir + "/serve-\(view).sqlite"
                let (serve, port) = try await LoopbackHTTP.serve(
                    view ? [] : ["--no-view"], database: db, folder: dir + "/serve-\(view)")
                let paths = documented + viewPaths
                for (n, path) in paths.enumerated() {
                    let answer = try await LoopbackHTTP.fetch(
                        "POST", path, port: port, headers: [Self.json], body: Self.batch(n))
                    #expect(answer.status == 200, "view \(view), POST \(path): \(answer.status) \(answer.text)")
                }
                // The view keeps its own POST, and only with the view on.
                let login = try await LoopbackHTTP.fetch(
                    "POST", "/login", port: port, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                    body: "token=x")
                #expect(login.status == (view ? 401 : 415), "view \(view), POST /login: \(login.status)")
                #expect(try await Self.storedPoints(db, folder: dir) == paths.count)

                // The README's own upload command, with the real `gpslog upload`.
                let source = dir + "/source-\(view).sqlite"
                let imported = try await runGPSLogAsync(
                    ["import", "--sample", "--name", "Sail"], database: source, folder: dir)
                try #require(imported.status == 0, "\(imported.stderr)")
                let upload = try await runGPSLogAsync(
                    ["upload", "Sail", "--url", "http://127.0.0.1:\(port)/api/overland"], database: source, folder: dir)
                #expect(upload.status == 0, "view \(view): \(upload.stderr)")
                let sent = try await Self.storedPoints(source, folder: dir)
                #expect(sent > 100)
                #expect(try await Self.storedPoints(db, folder: dir) == paths.count + sent)
                serve.process.terminate()
                _ = await serve.exitStatus(timeout: 60)
            }
        }
    }

    // MARK: - The view's token and its login

    @Test(.timeLimit(.minutes(5)))
    func aShortViewTokenIsRefusedOffLoopback() async throws {
        try await withTemporaryDirectory { dir in
            let file = dir + "/view-token"
            try "a\n".write(toFile: file, atomically: true, encoding: .utf8)
            chmod(file, 0o600)
            // In the background: a serve that wrongly starts is stopped at once, not waited for.
            let serve = try BackgroundGPSLog(
                [
                    "serve", "--listen", "0.0.0.0:0", "--token", "a-serve-token-long-enough", "--view-token-file", file,
                ], database: dir + "/db.sqlite", folder: dir)
            let status = await serve.exitStatus(timeout: 60)
            if status == nil { serve.process.terminate() }
            #expect(status != nil && status != 0 && serve.stdout.isEmpty, "serve started: \(serve.stdout)")
            #expect(
                serve.stderr.contains("--view-token-file") && serve.stderr.contains("16 characters"), "\(serve.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func loginIsLimitedPerAddressAndLogsTheAddress() async throws {
        try await withTemporaryDirectory { dir in
            let token = "the-view-token-0123456789"
            let file = dir + "/view-token"
            try token.write(toFile: file, atomically: true, encoding: .utf8)
            chmod(file, 0o600)
            let (serve, port) = try await LoopbackHTTP.serve(
                ["--view-token-file", file], database: dir + "/db.sqlite", folder: dir + "/serve")
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            func login(_ given: String, from source: String = "127.0.0.1") async throws -> LoopbackHTTP.Answer {
                try await LoopbackHTTP.fetch(
                    "POST", "/login", port: port, from: source, headers: form, body: "token=" + given)
            }
            for n in 0..<5 {
                #expect(try await login("wrong-\(n)").status == 401)
            }
            let refused = try await login("wrong-again")
            #expect(refused.status == 429)
            let wait = Int(refused.header("Retry-After") ?? "") ?? 0
            #expect((1...60).contains(wait), "Retry-After \(refused.header("Retry-After") ?? "none")")
            // Even the right token waits: guesses cannot go on between right answers.
            #expect(try await login(token).status == 429)
            // Another address is not held up by this one.
            let other = try await login(token, from: "127.0.1.9")
            #expect(other.status == 303 && (other.header("Set-Cookie") ?? "").contains("gpslog_view="))
            let log = serve.stderr
            #expect(log.contains("wrong token was given at /login from 127.0.0.1"), "\(log)")
            #expect(log.contains("refused a login from 127.0.0.1"), "\(log)")
            #expect(!log.contains(token), "the token is never logged")
        }
    }

    // MARK: - Slow connections from many addresses leave room for a phone

    @Test(.timeLimit(.minutes(5)))
    func slowConnectionsFromManyAddressesLeaveRoomForAPhone() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let (serve, port) = try await LoopbackHTTP.serve(["--no-view"], database: db, folder: dir + "/serve")
            // 20 addresses, each at its limit of 16 slow connections: 320, past the server's 256.
            let crowd = SlowCrowd(port: port, addresses: (1...20).map { "127.0.1.\($0)" }, perAddress: 16)
            crowd.start()
            defer { crowd.stop() }
            #expect(await waitUntilAsync(timeout: 60) { crowd.openCount >= 256 }, "the crowd got \(crowd.openCount)")

            var answers: [String] = []
            for n in 0..<12 {
                do {
                    let answer = try await LoopbackHTTP.fetch(
                        "POST", "/", port: port, headers: [Self.json], body: Self.batch(n))
                    answers.append("\(answer.status)")
                } catch {
                    answers.append("\(error)")
                }
            }
            #expect(answers.allSatisfy { $0 == "200" }, "the phone's posts: \(answers)")
            // A phone slow to send its header (1.5 s, under the 2 s a crowded server gives one): the crowd's new
            // connections take their own address's slots, not its one.
            let slow = try await onOwnThread { () throws -> String in
                guard let fd = LoopbackHTTP.connect(from: "127.0.0.1", port: port) else { return "no connection" }
                defer { close(fd) }
                usleep(1_500_000)  // the phone's slowness itself, not a wait for something
                let body = Self.batch(12)
                let head =
                    "POST / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
                guard LoopbackHTTP.send(fd, Array((head + body).utf8)) else { return "closed before it sent" }
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    if n <= 0 { break }
                    received.append(contentsOf: buffer[..<n])
                }
                return received.isEmpty ? "reset" : "\(try LoopbackHTTP.parse(received).status)"
            }
            #expect(slow == "200", "the slow phone's post: \(slow)")
            crowd.stop()
            // A crowded server closed the slow connections well before their 10 s header deadline.
            let lived = crowd.lifetimes.sorted()
            #expect(lived.count > 64, "\(lived.count) slow connections closed")
            if let longest = lived.last { #expect(longest < 9, "a slow connection lived \(longest) s") }
            #expect(try await Self.storedPoints(db, folder: dir) == 13)
            #expect(serve.process.isRunning)
        }
    }
}

/// Slow clients on a thread of their own: from each address, `perAddress` connections that send the start of a
/// request and then a header byte a second, never finishing it; a connection the server closes is opened again
/// (at most 32 every tenth of a second), as an attacker would.
final class SlowCrowd: @unchecked Sendable {
    let port: Int
    let addresses: [String]
    let perAddress: Int
    private let lock = NSLock()
    private var stopping = false
    private var finished = false
    private var open = 0
    private var lived: [Double] = []

    init(port: Int, addresses: [String], perAddress: Int) {
        self.port = port
        self.addresses = addresses
        self.perAddress = perAddress
    }

    var openCount: Int { lock.withLock { open } }
    /// How long each connection the server closed had lived, in seconds.
    var lifetimes: [Double] { lock.withLock { lived } }

    func start() { Thread { self.run() }.start() }

    func stop() {
        lock.withLock { stopping = true }
        _ = waitUntil(timeout: 60) { lock.withLock { finished } }
    }

    private func run() {
        struct Connection {
            var fd: Int32
            var address: String
            var opened: ContinuousClock.Instant
        }
        var connections: [Connection] = []
        var lastByte = ContinuousClock.now
        while !lock.withLock({ stopping }) {
            var opened = 0
            for address in addresses {
                let have = connections.filter { $0.address == address }.count
                for _ in have..<perAddress where opened < 32 {
                    guard let fd = LoopbackHTTP.connect(from: address, port: port, timeoutSeconds: 2) else { continue }
                    LoopbackHTTP.send(fd, Array("POST / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ".utf8))
                    connections.append(Connection(fd: fd, address: address, opened: .now))
                    opened += 1
                }
            }
            var fds = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            var closed = Set<Int32>()
            for p in fds where p.revents != 0 {
                var byte: UInt8 = 0
                if recv(p.fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0 { closed.insert(p.fd) }
            }
            let now = ContinuousClock.now
            var ages: [Double] = []
            for c in connections where closed.contains(c.fd) {
                let age = now - c.opened
                ages.append(Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18)
                close(c.fd)
            }
            connections.removeAll { closed.contains($0.fd) }
            if now - lastByte >= .seconds(1) {
                for c in connections { LoopbackHTTP.send(c.fd, [UInt8(ascii: "a")]) }
                lastByte = now
            }
            let count = connections.count
            lock.withLock {
                lived += ages
                open = count
            }
        }
        for c in connections { close(c.fd) }
        lock.withLock { finished = true }
    }
}
