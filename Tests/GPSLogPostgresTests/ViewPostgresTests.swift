// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogModel
import GPSLogTestSupport
import NIOCore
import Testing

/// The web view of `serve --store postgres://` reads the sessions from PostgreSQL: a SQLite serve and a PostgreSQL
/// serve given the same payloads answer the view's API alike (ids and row keys aside), a second serve on the same
/// database shows what the first received (one history for several machines), the days read alike, and the history
/// map's page opens.
@Suite(.ownThreads)
struct ViewPostgresTests {
    /// GET `path` from `serve`: the status and the body.
    static func get(_ serve: ServeStoreProcess, _ path: String) async throws -> (status: Int, body: Data) {
        let base = serve.url.hasSuffix("/") ? String(serve.url.dropLast()) : serve.url
        let request = HTTPClientRequest(url: base + path)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), Data(buffer: body))
    }

    static func json(_ serve: ServeStoreProcess, _ path: String) async throws -> Any {
        let (status, body) = try await get(serve, path)
        #expect(status == 200, "\(path): \(status) \(String(decoding: body, as: UTF8.self).prefix(300))")
        return try JSONSerialization.jsonObject(with: body)
    }

    /// The sessions of `/api/sessions` by name, each without its id (the two stores make their own).
    static func sessions(_ serve: ServeStoreProcess) async throws -> (
        byName: [String: [String: Any]], ids: [String: String]
    ) {
        let list = try #require(try await json(serve, "/api/sessions") as? [[String: Any]])
        var byName: [String: [String: Any]] = [:]
        var ids: [String: String] = [:]
        for s in list {
            let name = try #require(s["name"] as? String)
            ids[name] = s["id"] as? String
            var s = s
            s["id"] = nil
            byName[name] = s
        }
        return (byName, ids)
    }

    /// What the payloads hold, each once: a van's 12,000 points (so the chart samples them), a phone's locations,
    /// a manual location and a POI (marks), a transition and a visit.
    static let payloads: [(String, (String, String)?)] = {
        var list: [(String, (String, String)?)] = []
        for batch in 0..<60 {
            list.append((Payloads.overland(device: "van", start: 1_709_000_000 + batch * 200, count: 200), nil))
        }
        let jane = ("jane", "phone")
        for i in 0..<5 {
            list.append((Payloads.ownTracks(tst: 1_709_300_000 + i * 60, latitude: 52.3 + Double(i) * 1e-3), jane))
        }
        list.append((#"{"_type":"location","lat":52.31,"lon":4.9,"tst":1709300400,"acc":9,"t":"u","tid":"jp"}"#, jane))
        list.append(
            (#"{"_type":"location","lat":52.32,"lon":4.91,"tst":1709300500,"acc":9,"poi":"Cafe","tid":"jp"}"#, jane))
        list.append(
            (
                #"{"_type":"transition","event":"enter","tst":1709300600,"wtst":1709300000,"acc":8,"lat":52.3702,"lon":4.8901,"desc":"Office","rid":"a1","t":"c","tid":"jp"}"#,
                jane
            ))
        list.append(
            (
                #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[7.5,46.5]},"properties":{"timestamp":"2024-05-01T06:00:00Z","action":"visit","arrival_date":"2024-05-01T06:00:00Z","departure_date":"2024-05-01T07:00:00Z","horizontal_accuracy":20,"name":"Alp hut","device_id":"hiker"}}]}"#,
                nil
            ))
        return list
    }()

    @Test(.timeLimit(.minutes(10)))
    func theViewReadsPostgreSQLAsItReadsSQLite() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let url = cluster.socketURL("gpslog")
                let sqlite = try ServeStoreProcess(folder: dir + "/sqlite", store: nil)
                let postgres = try ServeStoreProcess(folder: dir + "/postgres", store: url)
                for (body, device) in Self.payloads {
                    let a = try await sqlite.post(body, ownTracks: device)
                    let b = try await postgres.post(body, ownTracks: device)
                    #expect(a.status == 200 && b.status == 200, "\(body.prefix(80)): \(a) \(b)")
                }
                // The sessions list: every figure alike (the length to a micrometre: PostgreSQL sums the same steps
                // in its own order).
                let (local, localIDs) = try await Self.sessions(sqlite)
                let (remote, remoteIDs) = try await Self.sessions(postgres)
                #expect(Set(local.keys) == ["van", "jane/phone", "hiker"], "\(local.keys)")
                #expect(Set(remote.keys) == Set(local.keys), "\(remote.keys)")
                for (name, a) in local {
                    var (a, b) = (a, try #require(remote[name]))
                    for key in ["distanceMeters", "averageSpeedMps"] {
                        let (da, db) = (a[key] as? Double ?? -1, b[key] as? Double ?? -1)
                        #expect(abs(da - db) < 1e-6, "\(name) \(key): \(da) \(db)")
                        (a[key], b[key]) = (nil, nil)
                    }
                    #expect(NSDictionary(dictionary: a) == NSDictionary(dictionary: b), "\(name): \(a)\n\(b)")
                }
                let van = (try #require(localIDs["van"]), try #require(remoteIDs["van"]))
                // The chart of the whole van (12,000 points: sampled to 5,000) and of a window (read whole).
                for query in ["", "?from=2024-02-27T02:20:00Z&to=2024-02-27T02:40:00Z"] {
                    var a = try #require(
                        try await Self.json(sqlite, "/api/sessions/\(van.0)/entries\(query)") as? [String: Any])
                    var b = try #require(
                        try await Self.json(postgres, "/api/sessions/\(van.1)/entries\(query)") as? [String: Any])
                    let count = (a["entries"] as? [Any])?.count ?? 0
                    #expect(query.isEmpty ? count == 5_000 : count == 1_201, "\(count) points")
                    // The cursor names the last row by its key: each store's own.
                    (a["cursor"], b["cursor"]) = (nil, nil)
                    #expect(NSDictionary(dictionary: a) == NSDictionary(dictionary: b), "entries\(query)")
                }
                // The map's track: the same coordinates, whole and simplified.
                for query in ["", "?tolerance=5"] {
                    let a = try await Self.coordinates(sqlite, "/api/sessions/\(van.0)/track.geojson\(query)")
                    let b = try await Self.coordinates(postgres, "/api/sessions/\(van.1)/track.geojson\(query)")
                    #expect(a.count > 2 && a == b, "track\(query): \(a.count) and \(b.count) coordinates")
                }
                // The phone's marks, and its session page.
                let phone = (try #require(localIDs["jane/phone"]), try #require(remoteIDs["jane/phone"]))
                let marks = try await (
                    Self.json(sqlite, "/api/sessions/\(phone.0)/marks"),
                    Self.json(postgres, "/api/sessions/\(phone.1)/marks")
                )
                #expect(
                    "\(Self.labels(marks.0))" == "\(Self.labels(marks.1))" && Self.labels(marks.1).count == 2,
                    "\(marks)")
                let page = try await Self.get(postgres, "/sessions/\(phone.1)")
                #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("jane/phone"))
                let plot = try await Self.get(postgres, "/api/sessions/\(van.1)/plot.svg")
                #expect(plot.status == 200 && String(decoding: plot.body, as: UTF8.self).contains("<svg"))
                #expect(try await Self.get(postgres, "/api/sessions/\(van.0)").status == 404)  // SQLite's id: none here

                // The van's page in headless Chromium: the map and the charts drawn as from SQLite.
                let chromium = "/usr/bin/chromium"
                try #require(FileManager.default.isExecutableFile(atPath: chromium), "make test installs chromium")
                var drawn: [[String?]] = []
                for (serve, id) in [(sqlite, van.0), (postgres, van.1)] {
                    let base = serve.url.hasSuffix("/") ? String(serve.url.dropLast()) : serve.url
                    let dom = try await onOwnThread {
                        try runTool(
                            chromium,
                            [
                                "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000",
                                "--dump-dom", base + "/sessions/" + id,
                            ]
                        ).output
                    }
                    #expect(dom.contains("data-ready=\"true\""), "\(dom.prefix(2000))")
                    drawn.append(
                        [
                            Self.attribute("vertices", of: "map", in: dom),
                            Self.attribute("segments", of: "map", in: dom),
                            Self.attribute("points", of: "chart-speed", in: dom),
                        ])
                }
                #expect(drawn[0] == drawn[1] && drawn[1][0] == "12000", "\(drawn)")

                // The statistics: counted by PostgreSQL with the SQLite store's rules, the same figures (each
                // longest trip names its own store's session id).
                var stats: [[String: Any]] = []
                for serve in [sqlite, postgres] {
                    var figures = try #require(try await Self.json(serve, "/api/stats") as? [String: Any])
                    let trips = try #require(figures["longestTrips"] as? [[String: Any]])
                    figures["longestTrips"] = trips.map { trip in trip.filter { $0.key != "session" } }
                    stats.append(figures)
                    #expect(try await Self.get(serve, "/stats").status == 200)
                }
                #expect(NSDictionary(dictionary: stats[0]) == NSDictionary(dictionary: stats[1]), "\(stats)")
                #expect((stats[1]["days"] as? [Any])?.count == 2 && (stats[1]["countries"] as? [Any])?.count == 2)

                // A second serve on the same database shows the sessions the first one received.
                let second = try ServeStoreProcess(folder: dir + "/second", store: url)
                let (seen, seenIDs) = try await Self.sessions(second)
                #expect(Set(seen.keys) == Set(remote.keys) && seenIDs == remoteIDs)
                _ = try await second.post(Payloads.overland(device: "van", start: 1_709_100_000, count: 10))
                let (after, _) = try await Self.sessions(postgres)
                #expect(after["van"]?["entries"] as? Int == 12_010, "\(after["van"] ?? [:])")

                // The days: the same timeline from both stores (the van's moves, the phone's, the hiker's visit),
                // and the day page.
                for day in ["2024-02-27", "2024-03-01", "2024-05-01"] {
                    let remoteDay = try await Self.json(postgres, "/api/day/\(day)")
                    let a = Self.withoutIDs(try await Self.json(sqlite, "/api/day/\(day)"))
                    let b = Self.withoutIDs(remoteDay)
                    #expect("\(a)" == "\(b)", "\(day):\n\("\(a)".prefix(600))\n\("\(b)".prefix(600))")
                    #expect(((remoteDay as? [String: Any])?["items"] as? [Any])?.isEmpty == false, "\(day)")
                    let page = try await Self.get(postgres, "/day/\(day)")
                    #expect(page.status == 200, "\(day): \(page.status)")
                }

                // The history map reads PostgreSQL too (HistoryPostgresTests compares its pixels).
                let history = try await Self.get(postgres, "/history")
                #expect(history.status == 200, "/history: \(history.status)")
            }
        }
    }

    static func coordinates(_ serve: ServeStoreProcess, _ path: String) async throws -> [[Double]] {
        let object = try #require(try await json(serve, path) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        return features.flatMap { feature -> [[Double]] in
            let geometry = feature["geometry"] as? [String: Any]
            switch geometry?["type"] as? String {
            case "LineString": return geometry?["coordinates"] as? [[Double]] ?? []
            case "MultiLineString": return (geometry?["coordinates"] as? [[[Double]]] ?? []).flatMap { $0 }
            case "Point": return [geometry?["coordinates"] as? [Double] ?? []]
            default: return []
            }
        }
    }

    /// `json` without what each store numbers its own way (session ids, visit keys), keys sorted, for comparing.
    static func withoutIDs(_ json: Any) -> Any {
        if let object = json as? [String: Any] {
            var out: [String: Any] = [:]
            for (key, value) in object where !["session", "id", "visits"].contains(key) { out[key] = withoutIDs(value) }
            return out.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        }
        if let array = json as? [Any] { return array.map(withoutIDs) }
        return json
    }

    /// The value of `data-NAME` on the element with `id` in Chromium's DOM.
    static func attribute(_ name: String, of id: String, in dom: String) -> String? {
        ChromiumDOM.attribute(name, of: id, in: dom)
    }

    static func labels(_ marks: Any) -> [String] {
        let list = (marks as? [String: Any])?["marks"] as? [[String: Any]] ?? (marks as? [[String: Any]] ?? [])
        return list.map { "\($0["time"] ?? "")|\($0["label"] ?? "")|\($0["latitude"] ?? "")" }
    }
}

/// People on a PostgreSQL history: users and device tokens in the SQLite database beside it, each phone posting
/// through `serve --store postgres://`, and each user's login seeing only their own devices' sessions there.
@Suite(.ownThreads)
struct ViewPostgresAccountsTests {
    static func run(_ arguments: [String], db: String, dir: String) async throws -> String {
        let r = try await runGPSLogAsync(arguments, database: db, folder: dir)
        try #require(r.status == 0, "\(arguments): \(r.stderr)")
        return r.stdout
    }

    /// A client that does not follow redirects (a login answers 303 with its cookie), for the whole test run.
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

    /// A request to `serve` with `headers` (and a body for a POST): its status, `Set-Cookie` and body.
    static func request(
        _ serve: ServeStoreProcess, _ method: String, _ path: String, headers: [(String, String)] = [],
        body: String? = nil
    ) async throws -> (status: Int, cookie: String?, body: String) {
        let base = serve.url.hasSuffix("/") ? String(serve.url.dropLast()) : serve.url
        var request = HTTPClientRequest(url: base + path)
        request.method = method == "POST" ? .POST : .GET
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await Self.client.execute(request, timeout: .seconds(60))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        let cookie = response.headers["Set-Cookie"].first.map { String($0.prefix { $0 != ";" }) }
        return (Int(response.status.code), cookie, text)
    }

    @Test(.timeLimit(.minutes(10)))
    func eachUserSeesOnlyTheirOwnDevicesSessions() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let db = dir + "/serve/gpslog.sqlite"
                try FileManager.default.createDirectory(atPath: dir + "/serve", withIntermediateDirectories: true)
                for (user, admin) in [("alice", false), ("bob", false), ("carol", true)] {
                    try "\(user)'s secret 1\n".write(toFile: dir + "/pw-" + user, atomically: true, encoding: .utf8)
                    _ = try await Self.run(
                        ["user", "add", user, "--password-file", dir + "/pw-" + user] + (admin ? ["--admin"] : []),
                        db: db, dir: dir)
                }
                var tokens: [String: String] = [:]
                for user in ["alice", "bob"] {
                    let out = try await Self.run(["device", "add", "\(user)/phone"], db: db, dir: dir)
                    tokens[user] = try #require(out.split(separator: "\n").last.map(String.init))
                }
                let serve = try ServeStoreProcess(folder: dir + "/serve", store: cluster.socketURL("gpslog"))
                for (user, token) in tokens {
                    let posted = try await Self.request(
                        serve, "POST", "/",
                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                        body: Payloads.overland(
                            device: "phone", start: user == "alice" ? 1_709_000_000 : 1_709_500_000, count: 50))
                    #expect(posted.status == 200, "\(user): \(posted)")
                }
                #expect(
                    try cluster.psql("gpslog", "SELECT receiver FROM sessions ORDER BY 1")
                        == "overland:alice/phone\noverland:bob/phone")

                var seen: [String: [[String: Any]]] = [:]
                for user in ["alice", "bob", "carol"] {
                    let login = try await Self.request(
                        serve, "POST", "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: "user=\(user)&password=\(user)%27s+secret+1")
                    let cookie = try #require(login.cookie, "\(user): \(login.status) \(login.body.prefix(200))")
                    let list = try await Self.request(serve, "GET", "/api/sessions", headers: [("Cookie", cookie)])
                    #expect(list.status == 200, "\(user): \(list)")
                    seen[user] = try JSONSerialization.jsonObject(with: Data(list.body.utf8)) as? [[String: Any]]
                    // The other user's session, by its id, on every route of a session: not found.
                    let names = (seen[user] ?? []).compactMap { $0["name"] as? String }
                    if user != "carol" {
                        #expect(names == ["\(user)/phone"], "\(user) sees \(names)")
                        let other = user == "alice" ? "bob" : "alice"
                        let otherID = try #require(
                            try cluster.psql(
                                "gpslog", "SELECT id FROM sessions WHERE receiver = 'overland:\(other)/phone'"
                            )
                            .split(separator: "\n").first.map(String.init))
                        for route in ["", "/entries", "/marks", "/track.geojson", "/plot.svg"] {
                            let answer = try await Self.request(
                                serve, "GET", "/api/sessions/\(otherID)\(route)", headers: [("Cookie", cookie)])
                            #expect(answer.status == 404, "\(user) asked \(route) of \(other)'s: \(answer.status)")
                        }
                        let page = try await Self.request(
                            serve, "GET", "/sessions/\(otherID)", headers: [("Cookie", cookie)])
                        #expect(page.status == 404 && !page.body.contains("\(other)/phone"), "\(user): \(page.status)")
                    } else {
                        #expect(Set(names) == ["alice/phone", "bob/phone"], "the admin sees \(names)")
                    }
                }
                // Without a login: nothing.
                #expect(try await Self.request(serve, "GET", "/api/sessions").status == 401)
            }
        }
    }
}
