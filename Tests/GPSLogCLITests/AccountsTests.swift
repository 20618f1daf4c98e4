// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// People and devices on one `gpslog serve`, end to end: `gpslog user` and `gpslog device` on a real SQLite file, a
/// real `serve` on a random loopback port, and each device token writing only as its own device over HTTP
/// (Overland's device_id, OwnTracks' X-Limit-U/D, topic and Basic user).
@Suite(.ownThreads, .serialized) struct AccountsTests {
    static let json = ("Content-Type", "application/json")

    /// A one-location Overland batch at second `second`, naming `device` (none: no device_id).
    static func overland(_ second: Int, device: String?) -> String {
        let time = String(format: "2024-05-01T10:%02d:%02dZ", second / 60 % 60, second % 60)
        let id = device.map { #","device_id":"\#($0)""# } ?? ""
        return #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5.1,52.1]},"#
            + #""properties":{"timestamp":"\#(time)"\#(id)}}]}"#
    }

    /// An OwnTracks location at second `second`, with `topic` when given (HTTP mode may carry one).
    static func ownTracks(_ second: Int, topic: String? = nil) -> String {
        let t = topic.map { #","topic":"\#($0)""# } ?? ""
        return #"{"_type":"location","lat":52.1,"lon":5.1,"tst":\#(1_714_557_600 + second),"tid":"ph"\#(t)}"#
    }

    static func basic(_ user: String, _ password: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }

    /// Ends a serve (SIGKILL: a child of the test inherits its blocked signals, SIGTERM among them).
    static func stop(_ serve: BackgroundGPSLog) {
        if serve.process.isRunning { kill(serve.process.processIdentifier, SIGKILL) }
        serve.process.waitUntilExit()
    }

    /// `gpslog device add USER/DEVICE`'s last line: the token.
    static func addDevice(_ device: String, db: String, folder: String) async throws -> String {
        let r = try await runGPSLogAsync(["device", "add", device], database: db, folder: folder)
        try #require(r.status == 0, "\(r.stderr)")
        let last = try #require(r.stdout.split(separator: "\n").last.map(String.init))
        #expect(last.wholeMatch(of: /gpsl_[A-Za-z0-9_-]{43}/) != nil, "the last line is the token alone: \(last)")
        return last
    }

    /// (Receiver, owner's name) of every received session.
    static func owners(_ db: String) throws -> [String: String] {
        let database = try Database(path: db, mode: .readOnly)
        defer { database.close() }
        let rows =
            try database.scalar(
                """
                SELECT group_concat(s.Receiver || '=' || COALESCE(u.Name, '-'), char(10))
                FROM Sessions s LEFT JOIN Users u ON u.Key = s.Owner WHERE s.Receiver IS NOT NULL
                """)?.string ?? ""
        return Dictionary(
            rows.split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            }, uniquingKeysWith: { a, _ in a })
    }

    /// The bytes of the database's files (the file and its WAL), to look for a secret in.
    static func databaseBytes(_ db: String) -> [UInt8] {
        ["", "-wal"].flatMap { suffix in
            (FileManager.default.contents(atPath: db + suffix)).map(Array.init) ?? []
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aDeviceTokenWritesOnlyAsItsOwnDeviceAndRevokingItWorksAtOnce() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            for user in ["alice", "bob"] {
                let r = try await runGPSLogAsync(["user", "add", user, "--no-password"], database: db, folder: dir)
                try #require(r.status == 0, "\(r.stderr)")
            }
            let alice = try await Self.addDevice("alice/phone", db: db, folder: dir)
            let bob = try await Self.addDevice("bob/phone", db: db, folder: dir)
            #expect(alice != bob)
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { Self.stop(serve) }
            let post = { (path: String, headers: [(String, String)], body: String) in
                try await LoopbackHTTP.fetch("POST", path, port: port, headers: [Self.json] + headers, body: body)
            }
            let bearer = { (token: String) in ("Authorization", "Bearer " + token) }

            // Once there are devices, a token is needed even on loopback.
            #expect(try await post("/", [], Self.overland(1, device: "phone")).status == 401)
            #expect(try await post("/", [bearer("gpsl_wrong")], Self.overland(1, device: "phone")).status == 401)

            // Overland: device_id DEVICE, USER/DEVICE or none is the token's device; another is refused.
            for (n, device) in ["phone", "alice/phone", nil].enumerated() {
                let answer = try await post("/", [bearer(alice)], Self.overland(10 + n, device: device))
                #expect(answer.status == 200, "\(String(describing: device)): \(answer.text)")
            }
            let hostile = #"bob/phone\u001b[31m"#  // JSON's escape: the device_id holds ESC
            for device in ["bob/phone", "tablet", "bob", hostile] {
                let answer = try await post("/", [bearer(alice)], Self.overland(20, device: device))
                #expect(answer.status == 403, "\(device): \(answer.text)")
                #expect(answer.text.contains("\"error\""))
            }
            // Another way to carry the token: ?api_key= (and ?token=, ?access_token=).
            #expect(try await post("/overland?api_key=\(alice)", [], Self.overland(13, device: "phone")).status == 200)

            // OwnTracks (HTTP mode): the Basic user, X-Limit-U/D and a topic in the message must name the token's.
            let ok: [[(String, String)]] = [
                [Self.basic("alice", alice), ("X-Limit-U", "alice"), ("X-Limit-D", "phone")],
                [Self.basic("alice", alice)],
                [bearer(alice), ("X-Limit-U", "alice")],
            ]
            for (n, headers) in ok.enumerated() {
                let answer = try await post("/pub", headers, Self.ownTracks(n))
                #expect(answer.status == 200, "\(headers.map(\.0)): \(answer.text)")
            }
            let refused: [([(String, String)], String)] = [
                ([Self.basic("alice", alice), ("X-Limit-U", "bob"), ("X-Limit-D", "phone")], Self.ownTracks(5)),
                ([Self.basic("alice", alice), ("X-Limit-U", "alice"), ("X-Limit-D", "tablet")], Self.ownTracks(5)),
                ([Self.basic("bob", alice)], Self.ownTracks(5)),
                ([Self.basic("alice", alice)], Self.ownTracks(5, topic: "owntracks/bob/phone")),
            ]
            for (headers, body) in refused {
                let answer = try await post("/pub", headers, body)
                #expect(answer.status == 403, "\(headers.map(\.1)): \(answer.text)")
            }
            // Bob's token writes as bob/phone.
            #expect(try await post("/", [bearer(bob)], Self.overland(30, device: "phone")).status == 200)

            let owners = try Self.owners(db)
            #expect(
                owners == [
                    "overland:alice/phone": "alice", "owntracks:alice/phone": "alice", "overland:bob/phone": "bob",
                ], "\(owners)")
            #expect(serve.stderr.contains("names the user 'bob'"), "refusals are logged: \(serve.stderr)")
            #expect(serve.stderr.contains("127.0.0.1"), "with the client's address")
            #expect(!serve.stderr.contains("\u{1B}"), "nothing from outside reaches the log unescaped")

            // The tokens are kept only as hashes, and never logged.
            let bytes = Self.databaseBytes(db)
            #expect(!bytes.isEmpty)
            for token in [alice, bob] {
                #expect(bytes.firstRange(of: Array(token.utf8)) == nil, "a token's text is in the database")
                #expect(!serve.stderr.contains(token) && !serve.stdout.contains(token), "a token is in serve's log")
            }
            let list = try await runGPSLogAsync(["device", "list"], database: db, folder: dir)
            #expect(list.status == 0 && list.stdout.contains("alice/phone") && !list.stdout.contains(alice))

            // Revoked while serve runs: refused from the next request on; bob's token still works.
            let revoke = try await runGPSLogAsync(["device", "revoke", "alice/phone"], database: db, folder: dir)
            #expect(revoke.status == 0, "\(revoke.stderr)")
            #expect(try await post("/", [bearer(alice)], Self.overland(40, device: "phone")).status == 401)
            #expect(try await post("/", [bearer(bob)], Self.overland(41, device: "phone")).status == 200)
            #expect(serve.stderr.contains("the token of alice/phone was revoked"), "\(serve.stderr)")
            let listed = try await runGPSLogAsync(["device", "list", "alice"], database: db, folder: dir)
            #expect(listed.stdout.contains("alice/phone") && !listed.stdout.contains("bob/phone"))
            #expect(!listed.stdout.split(separator: "\n").last!.hasSuffix("-"), "revoked: \(listed.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func theOneTokenStillWorksAndWritesAsAnyDevice() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let token = "one-token-for-all-0123456789"
            let admin = ("Authorization", "Bearer " + token)
            var (serve, port) = try await LoopbackHTTP.serve(["--token", token], database: db, folder: dir + "/s1")
            let post = { (port: Int, headers: [(String, String)], body: String) in
                try await LoopbackHTTP.fetch("POST", "/", port: port, headers: [Self.json] + headers, body: body)
            }
            #expect(try await post(port, [], Self.overland(1, device: "phone")).status == 401)
            #expect(
                try await post(port, [("Authorization", "Bearer " + token)], Self.overland(1, device: "a")).status
                    == 200)
            #expect(try await post(port, [Self.basic("x", token)], Self.ownTracks(1)).status == 200)
            #expect(try await post(port, [admin], Self.overland(4, device: "alice/tablet")).status == 200)
            Self.stop(serve)

            // With devices too, the one token still writes as any device, and a device's token only as its own.
            #expect(
                try await runGPSLogAsync(["user", "add", "alice", "--no-password"], database: db, folder: dir).status
                    == 0)
            let alice = try await Self.addDevice("alice/phone", db: db, folder: dir)
            (serve, port) = try await LoopbackHTTP.serve(["--token", token], database: db, folder: dir + "/s2")
            defer { Self.stop(serve) }
            // A session received before its user was added becomes theirs.
            #expect(try Self.owners(db)["overland:alice/tablet"] == "alice")
            #expect(try await post(port, [admin], Self.overland(2, device: "bob/phone")).status == 200)
            #expect(
                try await post(port, [("Authorization", "Bearer " + alice)], Self.overland(3, device: "bob/phone"))
                    .status == 403)
            #expect(
                try await post(port, [("Authorization", "Bearer " + alice)], Self.overland(3, device: nil)).status
                    == 200)
        }
    }

    /// Traccar Client and OsmAnd (a location in the URL or a form) and Traccar Client 9's JSON are held to the same
    /// rule: the `id` must be the token's device. Through the Dawarich API a device token reads its user's points
    /// only (Dawarich's api_key is a user's), and none of another user's.
    @Test(.timeLimit(.minutes(10)))
    func traccarsIdIsTheTokensDeviceAndADeviceTokenReadsItsUsersPointsOnly() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let r = try await runGPSLogAsync(["user", "add", "alice", "--no-password"], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let alice = try await Self.addDevice("alice/phone", db: db, folder: dir)
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { Self.stop(serve) }
            let t0 = 1_714_557_600
            for (n, id) in ["phone", "alice/phone"].enumerated() {
                let answer = try await LoopbackHTTP.fetch(
                    "GET", "/?id=\(id)&lat=52.1&lon=5.1&timestamp=\(t0 + n)&token=\(alice)", port: port)
                #expect(answer.status == 200, "\(id): \(answer.status) \(answer.text)")
            }
            for id in ["tablet", "bob/phone", "bob%1B%5B31m"] {
                let answer = try await LoopbackHTTP.fetch(
                    "GET", "/?id=\(id)&lat=52.1&lon=5.1&timestamp=\(t0 + 9)&token=\(alice)", port: port)
                #expect(answer.status == 403, "\(id): \(answer.status) \(answer.text)")
            }
            let json =
                #"{"location":{"timestamp":"2024-05-01T10:00:05Z","coords":{"latitude":52.1,"longitude":5.1}},"#
                + #""device_id":"tablet"}"#
            let refused = try await LoopbackHTTP.fetch(
                "POST", "/", port: port, headers: [Self.json, ("Authorization", "Bearer " + alice)], body: json)
            #expect(refused.status == 403, "\(refused.status) \(refused.text)")
            // Without a token: refused, not stored as anyone.
            let anonymous = try await LoopbackHTTP.fetch(
                "GET", "/?id=phone&lat=52.1&lon=5.1&timestamp=\(t0 + 20)", port: port)
            #expect(anonymous.status == 401, "\(anonymous.status) \(anonymous.text)")
            // Bob's phone, added while serve runs.
            let b = try await runGPSLogAsync(["user", "add", "bob", "--no-password"], database: db, folder: dir)
            try #require(b.status == 0, "\(b.stderr)")
            let bob = try await Self.addDevice("bob/phone", db: db, folder: dir)
            let bobs = try await LoopbackHTTP.fetch(
                "GET", "/?id=phone&lat=48.1&lon=11.5&timestamp=\(t0 + 30)&token=\(bob)", port: port)
            #expect(bobs.status == 200, "\(bobs.status) \(bobs.text)")
            let reads = { (token: String) async throws -> [Double] in
                let page = try await LoopbackHTTP.fetch("GET", "/api/v1/points?api_key=\(token)", port: port)
                #expect(page.status == 200, "\(page.status) \(page.text)")
                let points = try JSONSerialization.jsonObject(with: Data(page.body)) as? [[String: Any]] ?? []
                return points.compactMap { ($0["latitude"] as? String).flatMap(Double.init) }
            }
            #expect(try await reads(alice) == [52.1, 52.1], "alice's two points, none of bob's")
            #expect(try await reads(bob) == [48.1], "bob's one point")
            let stats = try await LoopbackHTTP.fetch("GET", "/api/v1/stats?api_key=\(bob)", port: port)
            let totals = try JSONSerialization.jsonObject(with: Data(stats.body)) as? [String: Any]
            #expect(stats.status == 200 && totals?["totalPointsTracked"] as? Int == 1, "\(stats.text)")

            #expect(try Self.owners(db) == ["osmand:alice/phone": "alice", "osmand:bob/phone": "bob"])
            let database = try Database(path: db, mode: .readOnly)
            defer { database.close() }
            #expect(try database.scalar("SELECT COUNT(*) FROM Entries")?.int64 == 3)
            #expect(!serve.stderr.contains("\u{1B}") && !serve.stderr.contains(alice) && !serve.stderr.contains(bob))
        }
    }

    @Test func passwordsAreKeptAsArgon2idHashes() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/accounts.sqlite"
            let file = dir + "/password"
            try "correct horse battery\n".write(toFile: file, atomically: true, encoding: .utf8)
            var r = try runGPSLog(["user", "add", "carol", "--admin", "--password-file", file], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            r = try runGPSLog(["user", "add", "dave"], database: db, input: "from stdin\n")
            #expect(r.status == 0, "\(r.stderr)")
            let hash = { (user: String) throws -> String in
                let database = try Database(path: db, mode: .readOnly)
                defer { database.close() }
                return try database.scalar("SELECT PasswordHash FROM Users WHERE Name = ?", [.text(user)])?.string ?? ""
            }
            let carol = try hash("carol")
            #expect(carol.hasPrefix("$argon2id$v=19$m="), "\(carol)")
            #expect(try hash("dave").hasPrefix("$argon2id$"))
            let dave = try hash("dave")
            #expect(!carol.contains("horse") && carol != dave)
            let bytes = Self.databaseBytes(db)
            #expect(bytes.firstRange(of: Array("correct horse".utf8)) == nil)

            r = try runGPSLog(["user", "password", "carol"], database: db, input: "another one\n")
            let changed = try hash("carol")
            #expect(r.status == 0 && changed != carol, "\(r.stderr)")
            r = try runGPSLog(["user", "add", "carol", "--no-password"], database: db)
            #expect(r.status != 0 && r.stderr.contains("already"), "\(r.stderr)")
            r = try runGPSLog(["user", "add", "bad/name", "--no-password"], database: db)
            #expect(r.status != 0 && r.stderr.contains("bad/name"), "\(r.stderr)")
            r = try runGPSLog(["device", "add", "nobody/phone"], database: db)
            #expect(r.status != 0 && r.stderr.contains("gpslog user add nobody"), "\(r.stderr)")

            r = try runGPSLog(["user", "list"], database: db)
            #expect(r.stdout.contains("carol") && r.stdout.contains("dave") && !r.stdout.contains("argon2"))
            r = try runGPSLog(["user", "remove", "dave"], database: db)
            let after = try runGPSLog(["user", "list"], database: db)
            #expect(r.status == 0 && !after.stdout.contains("dave"))
        }
    }
}
