// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import NIOCore
import Testing

/// `gpslog serve --store postgres://` running in the background on a free loopback port. `@unchecked Sendable`:
/// tasks posting at once only read its `url` (a constant); the process is touched by the test alone.
final class ServeStoreProcess: @unchecked Sendable {
    let process: BackgroundGPSLog
    let url: String

    init(folder: String, store: String?) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let process = try BackgroundGPSLog(
            ["serve", "--listen", "127.0.0.1:0", "--verbose"] + (store.map { ["--store", $0] } ?? []),
            database: folder + "/gpslog.sqlite", folder: folder)
        self.process = process
        var found: String?
        _ = waitUntil(timeout: 60) {
            found = process.stdout.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init)
            return found != nil || !process.process.isRunning
        }
        url = try #require(found, "serve did not start: \(process.stderr)")
    }

    /// Posts a body (with OwnTracks' user and device headers when given); the answer's status and body.
    func post(_ body: String, ownTracks device: (String, String)? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")  // as phones send it
        if let (user, phone) = device {
            request.headers.add(name: "X-Limit-U", value: user)
            request.headers.add(name: "X-Limit-D", value: phone)
        }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return Answer(
            status: Int(response.status.code), body: String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    deinit {
        if process.process.isRunning { process.process.terminate() }
    }
}

struct Answer: Equatable {
    var status: Int
    var body: String
}

/// Payloads as phones send them.
enum Payloads {
    /// An Overland batch of `count` locations of `device`, one a second from `start` (seconds since 1970), each at
    /// the place its time gives (a phone is in one place at a time: batches that overlap repeat the same points).
    static func overland(device: String, start: Int, count: Int, latitude: Double = 52.1) -> String {
        let locations = (0..<count).map { i -> String in
            let time = Timestamp(milliseconds: Int64(start + i) * 1000).iso8601()
            let step = Double((start + i) % 10_000) * 1e-5
            return """
                {"type":"Feature","geometry":{"type":"Point","coordinates":[\(4.3 + step),\(latitude + step)]},\
                "properties":{"timestamp":"\(time)","device_id":"\(device)","speed":\(i % 20),"horizontal_accuracy":5}}
                """
        }
        return #"{"locations":["# + locations.joined(separator: ",") + "]}"
    }

    static func ownTracks(tst: Int, latitude: Double) -> String {
        #"{"_type":"location","lat":\#(latitude),"lon":4.89,"tst":\#(tst),"acc":9,"tid":"jp"}"#
    }
}

/// Several `serve --store postgres://` processes share one database: every ok means stored, a location sent to
/// two of them at once is stored once, and the answers and rows are those of a SQLite serve given the same payloads.
@Suite(.ownThreads, .serialized)
struct ServePostgresTests {
    @Test func twoServesReceivingAtOnceStoreEachLocationOnce() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let url = cluster.socketURL("gpslog")
                let one = try ServeStoreProcess(folder: dir + "/one", store: url)
                let two = try ServeStoreProcess(folder: dir + "/two", store: url)
                var expected: [String: Set<Int64>] = [:]
                var oks = 0
                try await withThrowingTaskGroup(of: Answer.self) { group in
                    for batch in 0..<12 {
                        let start = 1_709_000_000 + batch * 100
                        // The same batch to both at once (a phone that resent it to the other node).
                        let same = Payloads.overland(device: "shared", start: start, count: 200)
                        group.addTask { try await one.post(same) }
                        group.addTask { try await two.post(same) }
                        // Different devices on each.
                        group.addTask {
                            try await one.post(Payloads.overland(device: "left", start: start, count: 200))
                        }
                        group.addTask {
                            try await two.post(Payloads.overland(device: "right", start: start, count: 200))
                        }
                        let owntracks = Payloads.ownTracks(tst: start, latitude: 52.3)
                        group.addTask { try await one.post(owntracks, ownTracks: ("jane", "phone")) }
                        group.addTask { try await two.post(owntracks, ownTracks: ("jane", "phone")) }
                        for device in ["overland:shared", "overland:left", "overland:right"] {
                            for i in 0..<200 { expected[device, default: []].insert(Int64(start + i) * 1000) }
                        }
                        expected["owntracks:jane/phone", default: []].insert(Int64(start) * 1000)
                    }
                    for try await answer in group {
                        #expect(answer.status == 200, "\(answer)")
                        if answer.status == 200 { oks += 1 }
                    }
                }
                #expect(oks == 12 * 6)
                // One session per device, each location once, every one that was answered ok.
                let sessions = try cluster.psql(
                    "gpslog", "SELECT receiver, count(*) FROM sessions GROUP BY receiver ORDER BY 1")
                #expect(sessions == "overland:left|1\noverland:right|1\noverland:shared|1\nowntracks:jane/phone|1")
                for (device, times) in expected {
                    let stored = try cluster.psql(
                        "gpslog",
                        "SELECT gpslog_ms(e.time) FROM entries e JOIN sessions s ON s.id = e.session_id WHERE s.receiver = '\(device)' ORDER BY 1"
                    )
                    #expect(stored.split(separator: "\n").map { Int64($0)! } == times.sorted(), "\(device)")
                    let track = try cluster.psql(
                        "gpslog",
                        "SELECT coalesce(ST_NPoints(track), 0), point_count FROM sessions WHERE receiver = '\(device)'")
                    let points = times.count >= 2 ? times.count : 0
                    #expect(track == "\(points)|\(times.count)", "\(device)")
                }
                #expect(one.process.stderr.contains("already there"))
            }
        }
    }

    @Test func aRestartedServerIsConnectedAgain() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let serve = try ServeStoreProcess(folder: dir + "/serve", store: cluster.socketURL("gpslog"))
                let ok = Answer(status: 200, body: #"{"result":"ok"}"#)
                #expect(try await serve.post(Payloads.overland(device: "van", start: 1_709_200_000, count: 10)) == ok)
                try cluster.restart()
                // The first payload after the restart finds the connection closed, connects again and is stored.
                #expect(try await serve.post(Payloads.overland(device: "van", start: 1_709_200_010, count: 10)) == ok)
                #expect(try cluster.psql("gpslog", "SELECT count(*), count(DISTINCT time) FROM entries") == "20|20")
                #expect(try cluster.psql("gpslog", "SELECT ST_NPoints(track), point_count FROM sessions") == "20|20")
            }
        }
    }

    @Test func answersAndRowsAreSQLites() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let sqlite = try ServeStoreProcess(folder: dir + "/sqlite", store: nil)
                let postgres = try ServeStoreProcess(folder: dir + "/postgres", store: cluster.socketURL("gpslog"))
                let jane = ("jane", "phone")
                let payloads: [(String, (String, String)?)] = [
                    (Payloads.overland(device: "van", start: 1_709_100_000, count: 50), nil),
                    (Payloads.overland(device: "van", start: 1_709_100_000, count: 50), nil),  // resent
                    (Payloads.overland(device: "van", start: 1_709_099_990, count: 20), nil),  // overlapping, earlier
                    (
                        #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[4.3,95]},"properties":{"timestamp":"2024-03-01T00:00:00Z"}}]}"#,
                        nil
                    ),
                    (#"{"locations": [tru"#, nil),
                    (Payloads.ownTracks(tst: 1_709_300_000, latitude: 52.37), jane),
                    (Payloads.ownTracks(tst: 1_709_300_000, latitude: 52.37), jane),  // resent: stored once
                    (Payloads.ownTracks(tst: 1_709_300_000, latitude: 52.38), jane),  // another place: kept
                    (
                        #"{"_type":"waypoint","desc":"Office","lat":52.37,"lon":4.89,"rad":120,"tst":1709300000,"rid":"a1"}"#,
                        jane
                    ),
                    (
                        #"{"_type":"transition","event":"enter","tst":1709310000,"wtst":1709300000,"acc":8,"lat":52.3702,"lon":4.8901,"desc":"Office","rid":"a1","t":"c","tid":"jp"}"#,
                        jane
                    ),
                    (
                        #"{"_type":"transition","event":"enter","tst":1709310000,"wtst":1709300000,"acc":8,"lat":52.3702,"lon":4.8901,"desc":"Office","rid":"a1","t":"c","tid":"jp"}"#,
                        jane
                    ),
                    (#"{"_type":"card","name":"Jane","tid":"jp"}"#, jane),
                    // Traccar Client 9: extras kept as the point's attributes (a quote and a NUL in a value).
                    (
                        #"{"location":{"timestamp":"2024-03-02T10:00:00Z","coords":{"latitude":52.1,"longitude":5.1,"accuracy":5},"extras":{"trip":"school","driver":"Ann \"A\" \u0000"}},"device_id":"bus"}"#,
                        nil
                    ),
                ]
                // A visit's arrival record, then its departure named by the sender, then a record naming it again
                // otherwise: the name fills in once and stays.
                let visit = { (departure: String, name: String) in
                    #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[7.5,46.5]},"properties":{"timestamp":"2024-05-01T06:00:00Z","action":"visit","arrival_date":"2024-05-01T06:00:00Z","departure_date":\#(departure),"horizontal_accuracy":20\#(name),"device_id":"hiker"}}]}"#
                }
                let visits: [(String, (String, String)?)] = [
                    (visit("null", ""), nil), (visit(#""2024-05-01T07:00:00Z""#, #","name":"Alp hut""#), nil),
                    (visit(#""2024-05-01T07:00:00Z""#, #","name":"Summit""#), nil),
                ]
                for (body, device) in payloads + visits {
                    let a = try await sqlite.post(body, ownTracks: device)
                    let b = try await postgres.post(body, ownTracks: device)
                    #expect(a == b, "\(body.prefix(80)): SQLite \(a), PostgreSQL \(b)")
                }
                // The same sessions and the same points (time, latitude, longitude) in each.
                let store = try Store(path: dir + "/sqlite/gpslog.sqlite")
                defer { store.close() }
                var local: [String] = []
                for session in try store.sessions().sorted(by: { $0.name < $1.name }) {
                    let summary = try store.summary(of: session)
                    for e in try store.entries(of: session.id).all() {
                        local.append("\(session.name)|\(e.time.milliseconds)|\(e.latitude)|\(e.longitude)")
                    }
                    local.append(
                        "\(session.name)|\(session.start.milliseconds)|\(session.end?.milliseconds ?? -1)|\(summary.entryCount)"
                    )
                }
                var remote: [String] = []
                let rows = try cluster.psql(
                    "gpslog",
                    """
                    SELECT s.name, gpslog_ms(e.time), e.latitude, e.longitude FROM entries e JOIN sessions s ON s.id = e.session_id
                    ORDER BY s.name, e.time, e.latitude
                    """)
                let spans = try cluster.psql(
                    "gpslog",
                    "SELECT name, gpslog_ms(start_time), coalesce(gpslog_ms(end_time), -1), (SELECT count(*) FROM entries WHERE session_id = s.id) FROM sessions s ORDER BY name"
                )
                var byName: [String: [String]] = [:]
                for line in rows.split(separator: "\n") {
                    let f = line.split(separator: "|").map(String.init)
                    byName[f[0], default: []].append("\(f[0])|\(f[1])|\(Double(f[2])!)|\(Double(f[3])!)")
                }
                for line in spans.split(separator: "\n") {
                    let name = String(line.split(separator: "|")[0])
                    remote += byName[name] ?? []
                    remote.append(String(line))
                }
                #expect(remote == local)
                // The same attributes in each (PostgreSQL's jsonb refuses a NUL: U+FFFD, as its other texts).
                let sessions = try store.sessions()
                let bus = try #require(sessions.first { $0.name.hasSuffix("bus") }, "\(sessions.map(\.name))")
                let inSQLite = try store.entries(of: bus.id).all().compactMap(\.attributes)
                let json = try cluster.psql("gpslog", "SELECT attributes FROM entries WHERE attributes IS NOT NULL")
                let inPostgres = try #require(
                    JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String], "\(json)")
                #expect(inSQLite == [["trip": "school", "driver": "Ann \"A\" \u{0}"]], "\(inSQLite)")
                #expect(inPostgres == ["trip": "school", "driver": "Ann \"A\" \u{FFFD}"], "\(inPostgres)")
                #expect(
                    try cluster.psql("gpslog", "SELECT name, gpslog_ms(departure) FROM visits")
                        .trimmingCharacters(in: .whitespacesAndNewlines) == "Alp hut|1714546800000")
                #expect(
                    try store.visits(of: try #require(store.sessions().first { $0.name == "hiker" }).id)
                        .map { "\($0.name ?? "-")|\($0.departure?.milliseconds ?? -1)" } == ["Alp hut|1714546800000"])
                // One location per time and place: the resent ones once, two places at one time both.
                #expect(
                    local.filter { $0.hasPrefix("jane/phone|1709300000000|") && $0.contains(".") }.count == 2,
                    "\(local)")
                #expect(local.filter { $0.hasPrefix("van|1709100000000|") && $0.contains(".") }.count == 1, "\(local)")
                #expect(
                    try cluster.psql("gpslog", "SELECT region_name, region_radius, event FROM transitions")
                        == "Office|120|enter")
                #expect(
                    try cluster.psql("gpslog", "SELECT device, card_name FROM received_devices")
                        == "owntracks:jane/phone|Jane")
            }
        }
    }
}
