// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// Each person sees only their own sessions in the web view, end to end: two users with passwords, each with a phone
/// posting through a real `serve`, and every route the view registers asked for the other's session.
@Suite(.ownThreads, .serialized) struct ViewAccountsTests {
    static let form = ("Content-Type", "application/x-www-form-urlencoded")

    /// Every path the web view registers, read from its sources (`router.get("...")`, `router.on("...")` and the
    /// `prefix + "..."` of the session routes), so a route added later is in this test without anyone listing it.
    static func viewRoutes() throws -> Set<String> {
        let folder = TestPaths.packageRoot + "/Sources/GPSLogView"
        var routes = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in text.matches(of: /router\.(?:get|post|on)\(\s*"([^"]+)"/) { routes.insert(String(match.1)) }
            for match in text.matches(of: /prefix \+ "([^"]+)"/) { routes.insert(String(match.1)) }
            for match in text.matches(of: /RouterPath\("([^"]+)"/) { routes.insert(String(match.1)) }
        }
        return routes
    }

    /// (session id, owner's name or "-") of every session.
    static func sessions(_ db: String) throws -> [(id: String, owner: String)] {
        let database = try Database(path: db, mode: .readOnly)
        defer { database.close() }
        let text =
            try database.scalar(
                """
                SELECT group_concat(s.ID || '=' || COALESCE(u.Name, '-'), char(10))
                FROM Sessions s LEFT JOIN Users u ON u.Key = s.Owner
                """)?.string ?? ""
        return text.split(separator: "\n").map {
            let parts = $0.split(separator: "=")
            return (String(parts[0]), String(parts[1]))
        }
    }

    /// Adds `name` with `password` (and `--admin`).
    static func addUser(_ name: String, _ password: String, admin: Bool = false, db: String, dir: String) async throws {
        let file = dir + "/password-" + name
        try (password + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let r = try await runGPSLogAsync(
            ["user", "add", name, "--password-file", file] + (admin ? ["--admin"] : []), database: db, folder: dir)
        try #require(r.status == 0, "\(r.stderr)")
    }

    /// `text` as a browser's form sends it: a space as '+', everything else but letters and digits as %XX.
    static func formEncoded(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map {
            $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }.joined(separator: "+")
    }

    /// Logs in; the answer and the `Cookie` header to send after.
    static func login(_ user: String, _ password: String, port: Int, from source: String = "127.0.0.1") async throws
        -> (LoopbackHTTP.Answer, (String, String)?)
    {
        let answer = try await LoopbackHTTP.fetch(
            "POST", "/login", port: port, from: source, headers: [form],
            body: "user=\(user)&password=\(Self.formEncoded(password))")
        let cookie = answer.header("Set-Cookie").map { ("Cookie", String($0.prefix { $0 != ";" })) }
        return (answer, cookie)
    }

    @Test(.timeLimit(.minutes(10)))
    func aUserSeesNoneOfAnothersDataOnAnyPageOrAPIRoute() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let (alicePassword, bobPassword) = ("alice's secret 1", "bob's secret 2")
            try await Self.addUser("alice", alicePassword, db: db, dir: dir)
            try await Self.addUser("bob", bobPassword, db: db, dir: dir)
            try await Self.addUser("carol", "carol's secret 3", admin: true, db: db, dir: dir)
            // A session of no one's (recorded or imported): only an admin sees it.
            let sample = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(sample.status == 0, "\(sample.stderr)")
            let alicePhone = try await AccountsTests.addDevice("alice/phone", db: db, folder: dir)
            let bobPhone = try await AccountsTests.addDevice("bob/phone", db: db, folder: dir)
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            for (token, second) in [(alicePhone, 0), (bobPhone, 100)] {
                for n in 0..<3 {
                    let answer = try await LoopbackHTTP.fetch(
                        "POST", "/", port: port, headers: [AccountsTests.json, ("Authorization", "Bearer " + token)],
                        body: AccountsTests.overland(second + n * 10, device: "phone"))
                    #expect(answer.status == 200, "\(answer.text)")
                }
            }
            let all = try Self.sessions(db)
            let alice = try #require(all.first { $0.owner == "alice" }?.id)
            let bob = try #require(all.first { $0.owner == "bob" }?.id)
            let nobody = try #require(all.first { $0.owner == "-" }?.id)

            // Users have passwords: even on loopback, nothing without a login.
            #expect(try await LoopbackHTTP.fetch("GET", "/api/sessions", port: port).status == 401)
            #expect(try await LoopbackHTTP.fetch("GET", "/", port: port).header("Location") == "/login")
            let loginPage = try await LoopbackHTTP.fetch("GET", "/login", port: port).text
            #expect(loginPage.contains("name=\"user\"") && loginPage.contains("name=\"password\""))

            // A wrong password is a 401; the right one a cookie with the right attributes.
            #expect(try await Self.login("alice", "wrong", port: port).0.status == 401)
            let (answer, cookieHeader) = try await Self.login("alice", alicePassword, port: port)
            #expect(answer.status == 303, "\(answer.text)")
            let setCookie = try #require(answer.header("Set-Cookie"))
            let value = try #require(setCookie.wholeMatch(of: /gpslog_view=([0-9a-f]{64});.*/)?.1, "\(setCookie)")
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=2592000"] {
                #expect(setCookie.contains(attribute), "\(setCookie)")
            }
            #expect(!setCookie.contains("Secure"), "on loopback (plain HTTP) the cookie cannot be Secure")
            #expect(AccountsTests.databaseBytes(db).firstRange(of: Array(value.utf8)) == nil, "kept only hashed")
            let cookie = try #require(cookieHeader)
            let get = { (path: String) in try await LoopbackHTTP.fetch("GET", path, port: port, headers: [cookie]) }

            // Every route of the view, each one classified: a new route fails here until it is.
            let routes = try Self.viewRoutes()
            let perSession = routes.filter { $0.contains(":id") }
            let lists: Set<String> = ["/", "/api/sessions", "/stats", "/api/stats"]
            // The basemap's tiles (serve --tiles FILE.mbtiles) are the user's map, no session's data (MBTilesServeTests).
            let noData: Set<String> = [
                "/login", "/logout", "/static/:file", "/s/:share", "/tiles/:z/:x/:y", "/s/:share/tiles/:z/:x/:y",
            ]
            let libraries = routes.filter { $0.hasPrefix("/lib/") }
            // The history map draws only the viewer's own tracks (HistoryMapTests).
            let history: Set<String> = ["/history", "/history/tiles/:z/:x/:y", "/api/history/at"]
            // A day's timeline shows only the viewer's own visits and tracks (TimelineTests).
            let days: Set<String> = ["/day/:day", "/api/day/:day"]
            #expect(
                routes.subtracting(perSession).subtracting(lists).subtracting(noData).subtracting(libraries)
                    .subtracting(history).subtracting(days).isEmpty,
                "unclassified routes: \(routes)")
            #expect(
                perSession.isSuperset(of: [
                    "/sessions/:id", "/api/sessions/:id", "/api/sessions/:id/track.geojson",
                    "/api/sessions/:id/entries", "/api/sessions/:id/live", "/api/sessions/:id/marks",
                    "/api/sessions/:id/plot.svg",
                ]), "\(perSession)")
            for route in perSession.sorted() {
                for (id, status) in [(bob, 404), (nobody, 404), (alice, 200), (String(bob.prefix(8)), 404)] {
                    let path = route.replacingOccurrences(of: ":id", with: id)
                    let answer = try await get(path)
                    #expect(answer.status == status, "\(path): \(answer.status)")
                    if status == 404 { #expect(!answer.text.contains("bob"), "\(path) tells of bob's session") }
                }
            }
            for list in lists.sorted() {
                let text = try await get(list).text
                #expect(text.contains(alice), "\(list) lists alice's own")
                #expect(!text.contains(bob) && !text.contains(nobody), "\(list) lists another's: \(text)")
            }
            // An admin sees all.
            let (_, carol) = try await Self.login("carol", "carol's secret 3", port: port)
            let adminList = try await LoopbackHTTP.fetch(
                "GET", "/api/sessions", port: port, headers: [try #require(carol)]
            ).text
            #expect(adminList.contains(alice) && adminList.contains(bob) && adminList.contains(nobody))
            // What the admin's requests put in the server's cache is not another's answer.
            for route in ["track.geojson", "entries", "plot.svg"] {
                let path = "/api/sessions/\(bob)/\(route)"
                let admin = try await LoopbackHTTP.fetch("GET", path, port: port, headers: [try #require(carol)])
                #expect(admin.status == 200, "\(path) for the admin")
                #expect(try await get(path).status == 404, "\(path) for alice after the admin's")
            }

            // The 6th wrong login from one address is refused, whatever user name it tries, the right one too.
            for name in ["alice", "bob", "carol", "dave", "eve"] {
                #expect(try await Self.login(name, "guess", port: port, from: "127.0.0.7").0.status == 401)
            }
            let throttled = try await Self.login("bob", bobPassword, port: port, from: "127.0.0.7").0
            #expect(throttled.status == 429 && throttled.header("Retry-After") != nil)
            let (bobAnswer, bobCookie) = try await Self.login("bob", bobPassword, port: port, from: "127.0.0.8")
            #expect(bobAnswer.status == 303)
            let asBob = { () async throws -> Int in
                try await LoopbackHTTP.fetch("GET", "/api/sessions", port: port, headers: [try #require(bobCookie)])
                    .status
            }
            #expect(try await asBob() == 200)
            // A removed user's logins end with them; an expired login opens nothing.
            let removed = try await runGPSLogAsync(["user", "remove", "bob"], database: db, folder: dir)
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(try await asBob() == 401)
            let (_, carolAgain) = try await Self.login("carol", "carol's secret 3", port: port)
            let database = try Database(path: db)
            try database.run(
                "UPDATE ViewLogins SET ExpiresAt = 1 WHERE User = (SELECT Key FROM Users WHERE Name = 'carol')")
            database.close()
            #expect(
                try await LoopbackHTTP.fetch("GET", "/api/sessions", port: port, headers: [try #require(carolAgain)])
                    .status == 401)

            // Logged out: the cookie opens nothing any more.
            let out = try await get("/logout")
            #expect(out.status == 303 && (out.header("Set-Cookie") ?? "").contains("Max-Age=0"))
            #expect(try await get("/api/sessions").status == 401)

            let log = serve.stderr + serve.stdout
            #expect(log.contains("a wrong password for user alice was given at /login from 127.0.0.1"), "\(log)")
            #expect(log.contains("refused a login from 127.0.0.7"), "\(log)")
            for secret in [alicePassword, bobPassword, "carol's secret 3", "guess", String(value)] {
                #expect(!log.contains(secret), "a password or cookie is in serve's log")
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func offLoopbackTheLoginCookieIsSecure() async throws {
        try await withTemporaryDirectory { dir in
            let token = "view-secure-token-0123456789"
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "0.0.0.0:0", "--token", token, "--tiles", "none"], database: dir + "/db.sqlite",
                folder: dir)
            defer { AccountsTests.stop(serve) }
            _ = await waitUntilAsync(timeout: 60) { serve.stdout.contains("Listening on http://") }
            let port = try #require(Int(serve.stdout.split(separator: ":").last?.prefix { $0.isNumber } ?? ""))
            let answer = try await LoopbackHTTP.fetch(
                "POST", "/login", port: port, headers: [Self.form], body: "token=" + token)
            #expect(answer.status == 303)
            let cookie = answer.header("Set-Cookie") ?? ""
            #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aShareLinkOpensOneSessionAndNothingElseUntilRevoked() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            try await Self.addUser("alice", "alice's secret 1", db: db, dir: dir)
            try await Self.addUser("bob", "bob's secret 2", db: db, dir: dir)
            let sample = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(sample.status == 0, "\(sample.stderr)")
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            for (user, second) in [("alice", 0), ("bob", 100)] {
                let token = try await AccountsTests.addDevice(user + "/phone", db: db, folder: dir)
                for n in 0..<3 {
                    let answer = try await LoopbackHTTP.fetch(
                        "POST", "/", port: port, headers: [AccountsTests.json, ("Authorization", "Bearer " + token)],
                        body: AccountsTests.overland(second + n * 10, device: "phone"))
                    #expect(answer.status == 200, "\(answer.text)")
                }
            }
            let all = try Self.sessions(db)
            let alice = try #require(all.first { $0.owner == "alice" }?.id)
            let bob = try #require(all.first { $0.owner == "bob" }?.id)
            let nobody = try #require(all.first { $0.owner == "-" }?.id)

            var r = try await runGPSLogAsync(
                ["share", alice, "--base-url", "http://127.0.0.1:\(port)"], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let link = try #require(r.stdout.split(separator: "\n").last.map(String.init))
            let match = try #require(link.wholeMatch(of: /http:\/\/127\.0\.0\.1:\d+\/s\/([0-9a-f]{64})/), "\(link)")
            let token = String(match.1)
            let base = "/s/" + token
            #expect(AccountsTests.databaseBytes(db).firstRange(of: Array(token.utf8)) == nil, "kept only hashed")
            for bad in [["share", alice, "--expires", "400d"], ["share", alice, "--expires", "soon"]] {
                r = try await runGPSLogAsync(bad, database: db, folder: dir)
                #expect(r.status != 0 && r.stderr.contains("--expires"), "\(r.stderr)")
            }

            // The link, without any login: the session's page and each of its routes under the link.
            let get = { (path: String) in try await LoopbackHTTP.fetch("GET", path, port: port) }
            let page = try await get(base)
            #expect(page.status == 200 && page.text.contains("data-base=\"\(base)\""), "\(page.text)")
            let perSession = try Self.viewRoutes().filter { $0.hasPrefix("/api/sessions/:id") }
            #expect(perSession.count >= 6, "\(perSession)")
            for route in perSession.sorted() {
                let own = try await get(base + route.replacingOccurrences(of: ":id", with: alice))
                #expect(own.status == 200, "\(route): \(own.status) \(own.text)")
                for other in [bob, nobody] {
                    let answer = try await get(base + route.replacingOccurrences(of: ":id", with: other))
                    #expect(answer.status == 404, "\(route) of another session: \(answer.status)")
                    // Nor the view's own routes: the link is no login.
                    let plain = try await get(route.replacingOccurrences(of: ":id", with: alice))
                    #expect(plain.status == 401, "\(route) outside the link: \(plain.status)")
                }
            }
            let live = try await get(base + "/api/sessions/\(alice)/live")
            #expect(live.text.contains("event: point") && live.text.contains("event: end"), "\(live.text)")
            #expect(try await get(base + "/api/sessions").status == 404)
            #expect(try await get("/api/sessions").status == 401)
            #expect(try await get("/").header("Location") == "/login")
            #expect(try await get("/sessions/" + alice).header("Location") == "/login")
            // Nor the receiver: the link's token writes nothing.
            let post = try await LoopbackHTTP.fetch(
                "POST", "/", port: port, headers: [AccountsTests.json, ("Authorization", "Bearer " + token)],
                body: AccountsTests.overland(200, device: "phone"))
            #expect(post.status == 401)

            // One load in a browser: the map and the charts draw through the link's API.
            if FileManager.default.isExecutableFile(atPath: WebViewTests.chromium) {
                let dom = try WebViewTests.dom("http://127.0.0.1:\(port)" + base)
                #expect(WebViewTests.bodyAttribute("ready", in: dom) == "true", "\(dom.prefix(3000))")
                #expect(WebViewTests.bodyAttribute("error", in: dom) == nil, "\(dom.prefix(3000))")
                #expect(WebViewTests.attribute("ready", of: "charts", in: dom) == "true")
            }

            r = try await runGPSLogAsync(["share", "list"], database: db, folder: dir)
            #expect(r.status == 0 && r.stdout.contains("open") && !r.stdout.contains(token), "\(r.stdout)")
            let id = try #require(r.stdout.split(separator: "\n").dropFirst().first?.split(separator: " ").first)
            r = try await runGPSLogAsync(["share", "revoke", String(id)], database: db, folder: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try await get(base).status == 404)
            #expect(try await get(base + "/api/sessions/\(alice)").status == 401)

            // An expired link opens nothing either.
            r = try await runGPSLogAsync(["share", bob, "--expires", "1h"], database: db, folder: dir)
            let second = try #require(r.stdout.split(separator: "\n").last?.split(separator: "/").last.map(String.init))
            #expect(try await get("/s/" + second).status == 200)
            let database = try Database(path: db)
            try database.run("UPDATE SessionShares SET ExpiresAt = 1")
            database.close()
            #expect(try await get("/s/" + second).status == 404)
            #expect(!(serve.stderr + serve.stdout).contains(token), "a share token is in serve's log")
        }
    }

    static let trackPointCount = "SELECT count(*) FROM EntryRows WHERE Marked = 0 AND IsHeadingChanged = 0"

    /// A share link made while the session records follows the recording: its live stream, opened through the link
    /// without a login, sends every track point, those recorded after the link was made too, and ends with the
    /// recording.
    @Test(.timeLimit(.minutes(10)))
    func aShareLinkOfARecordingFollowsIt() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            try await Self.addUser("alice", "alice's secret 1", db: db, dir: dir)
            for name in ["rec", "serve"] {
                try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
            }
            // The sample's 147 s at twice its pace.
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--source", "replay:sample?speed=2", "--commit-every", "1s", "--name", "Live",
                    "--geocode", "off",
                ], database: db, folder: dir + "/rec")
            defer { recorder.process.terminate() }
            let trackPoints = { () -> Int in
                guard let database = try? Database(path: db, mode: .readOnly) else { return 0 }
                defer { database.close() }
                return Int((try? database.scalar(Self.trackPointCount))?.int64 ?? 0)
            }
            _ = await waitUntilAsync(timeout: 120) { trackPoints() >= 5 }
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            let id = try #require(try Self.sessions(db).first?.id)
            let r = try await runGPSLogAsync(
                ["share", id, "--base-url", "http://127.0.0.1:\(port)"], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let token = try #require(r.stdout.split(separator: "\n").last?.split(separator: "/").last.map(String.init))
            let atShare = trackPoints()
            try #require(recorder.process.isRunning, "the recording must still run when the link is made")

            // The stream stays open while the session records, and closes after its end event.
            let live = try await LoopbackHTTP.fetch("GET", "/s/\(token)/api/sessions/\(id)/live", port: port)
            #expect(await recorder.exitStatus(timeout: 240) == 0, "\(recorder.stderr)")
            let total = trackPoints()
            let sent = live.text.components(separatedBy: "event: point").count - 1
            #expect(live.status == 200 && live.text.contains("event: end"), "\(live.status) \(live.text.suffix(500))")
            #expect(total > atShare, "points came after the link was made: \(atShare) then \(total)")
            #expect(sent == total, "every track point through the link: \(sent) of \(total)")
            // Still that one session only.
            #expect(try await LoopbackHTTP.fetch("GET", "/s/\(token)/api/sessions", port: port).status == 404)
        }
    }
}
