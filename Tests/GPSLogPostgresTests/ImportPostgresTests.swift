// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogPostgres
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `gpslog import --postgres`: the importers' pipeline ends in PostgreSQL (`PostgresSessionSink`), and what it
/// stores there is what the same import stores in SQLite, row by row.
@Suite(.ownThreads, .serialized)
struct ImportPostgresTests {
    /// A session as both databases can print it.
    struct SessionRow: Hashable {
        var id: String
        var name: String
        var start: Int64
        var end: Int64?
        var mode: String?
        var isTrip: Bool
    }

    /// An entry as both databases can print it; the id apart (a GPX import draws new ids each time).
    struct EntryRow: Hashable, Comparable {
        var time: Int64
        var latitude: Double
        var longitude: Double
        var altitude: Double?
        var speed: Double?
        var course: Double?
        var marked: Bool
        var label: String
        var instanceCount: Int
        var headingChanged: Bool

        static func < (a: EntryRow, b: EntryRow) -> Bool {
            (a.time, a.marked ? 1 : 0, a.latitude, a.longitude) < (b.time, b.marked ? 1 : 0, b.latitude, b.longitude)
        }
    }

    /// Sessions, by name, with their entries (sorted) and their entry ids (sorted).
    typealias Contents = [String: (session: SessionRow, entries: [EntryRow], ids: [String])]

    static func sqliteContents(_ path: String) throws -> Contents {
        let store = try Store(path: path)
        defer { store.close() }
        var contents: Contents = [:]
        for s in try store.sessions() {
            let entries = try store.entries(of: s.id).all()
            let row = SessionRow(
                id: s.id.lowercased(), name: s.name, start: s.start.milliseconds, end: s.end?.milliseconds,
                mode: s.mode?.rawValue, isTrip: s.isTrip)
            contents[s.name] = (
                row,
                entries.map {
                    EntryRow(
                        time: $0.time.milliseconds, latitude: $0.latitude, longitude: $0.longitude,
                        altitude: $0.altitude, speed: $0.speed, course: $0.course, marked: $0.marked,
                        label: $0.label ?? "", instanceCount: $0.instanceCount, headingChanged: $0.isHeadingChanged)
                }.sorted(), entries.map { $0.id.lowercased() }.sorted()
            )
        }
        return contents
    }

    static func postgresContents(_ cluster: PostgresCluster) throws -> Contents {
        var contents: Contents = [:]
        let sessions = try cluster.psql(
            "gpslog",
            "SELECT id, name, gpslog_ms(start_time), gpslog_ms(end_time), coalesce(mode, ''), is_trip FROM sessions")
        for line in sessions.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let row = SessionRow(
                id: f[0], name: f[1], start: Int64(f[2])!, end: Int64(f[3]), mode: f[4].isEmpty ? nil : f[4],
                isTrip: f[5] == "t")
            contents[row.name] = (row, [], [])
        }
        let entries = try cluster.psql(
            "gpslog",
            """
            SELECT s.name, e.id, gpslog_ms(e.time), e.latitude, e.longitude, e.altitude, e.speed, e.course, e.marked,
                coalesce(e.label, ''), e.instance_count, e.is_heading_changed
            FROM entries e JOIN sessions s ON s.id = e.session_id
            """)
        for line in entries.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let row = EntryRow(
                time: Int64(f[2])!, latitude: Double(f[3])!, longitude: Double(f[4])!, altitude: Double(f[5]),
                speed: Double(f[6]), course: Double(f[7]), marked: f[8] == "t", label: f[9],
                instanceCount: Int(f[10])!, headingChanged: f[11] == "t")
            contents[f[0]]!.entries.append(row)
            contents[f[0]]!.ids.append(f[1])
        }
        return contents.mapValues { ($0.session, $0.entries.sorted(), $0.ids.sorted()) }
    }

    static let marksAndTwoTracks = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
          <wpt lat="52.5" lon="5.5"><time>2024-05-01T08:00:30Z</time><name>Jetty &amp; "pier" 🚤</name></wpt>
          <wpt lat="52.25" lon="5.25"><time>2024-05-01T09:00:30Z</time><name>Lunch</name></wpt>
          <trk><name>Morning</name><trkseg>
            <trkpt lat="52.1" lon="5.1"><ele>1.5</ele><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="52.2" lon="5.2"><ele>2.25</ele><time>2024-05-01T08:01:00Z</time></trkpt>
            <trkpt lat="52.3" lon="5.3"><time>2024-05-01T08:02:00.125Z</time></trkpt></trkseg></trk>
          <trk><name>Afternoon</name><trkseg>
            <trkpt lat="52.4" lon="5.4"><time>2024-05-01T09:00:00Z</time></trkpt>
            <trkpt lat="52.45" lon="5.45"><time>2024-05-01T09:01:00Z</time></trkpt></trkseg></trk>
        </gpx>
        """

    /// The bundled sample (NMEA, through the sampler) and a GPX file of two tracks and marks: the same sessions,
    /// entries (marks and labels among them), times and coordinates in PostgreSQL as in SQLite, and the sample's ids
    /// too (they are derived from its bytes). Each session's track is drawn from its track points.
    @Test func importsTheSameRowsAsIntoSQLite() throws {
        try withTemporaryDirectory { dir in
            try withPostgresCluster { cluster in
                let db = dir + "/gpslog.sqlite"
                let gpx = dir + "/day.gpx"
                try Self.marksAndTwoTracks.write(toFile: gpx, atomically: true, encoding: .utf8)
                let url = cluster.socketURL("gpslog")
                let intoSQLite = try runGPSLog(["import", "--sample", gpx], database: db)
                try #require(intoSQLite.status == 0, "\(intoSQLite.stderr)")
                let intoPostgres = try runGPSLog(
                    ["import", "--sample", gpx, "--postgres", url], database: dir + "/untouched.sqlite")
                try #require(intoPostgres.status == 0, "\(intoPostgres.stderr)\n\(cluster.logText)")
                // The same report; the sample's line whole (its session id is the same in both).
                let lines = (intoSQLite.stdout.split(separator: "\n"), intoPostgres.stdout.split(separator: "\n"))
                #expect(lines.0.count == 3 && lines.1.count == 3 && lines.0.first == lines.1.first, "\(lines)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/untouched.sqlite"))
                // A few thousand rows are left to autovacuum to analyze.
                #expect(
                    try cluster.psql(
                        "gpslog", "SELECT last_analyze IS NULL FROM pg_stat_user_tables WHERE relname = 'entries'")
                        == "t")

                let local = try Self.sqliteContents(db)
                let remote = try Self.postgresContents(cluster)
                #expect(Set(local.keys) == ["IJsselmeer sail (sample)", "Morning", "Afternoon"])
                #expect(Set(remote.keys) == Set(local.keys))
                for (name, l) in local {
                    guard let r = remote[name] else { continue }
                    #expect(r.entries == l.entries, "\(name)")
                    var session = r.session
                    if name != "IJsselmeer sail (sample)" { session.id = l.session.id }  // a GPX import's are new
                    #expect(session == l.session, "\(name)")
                }
                let sample = try #require(local["IJsselmeer sail (sample)"])
                #expect(sample.entries.count > 100)
                #expect(remote["IJsselmeer sail (sample)"]?.ids == sample.ids)
                #expect(local["Morning"]?.entries.filter(\.marked).map(\.label) == [#"Jetty & "pier" 🚤"#, "Lunch"])

                // Each session's LineString: its track points, as `sync` draws it.
                let store = try Store(path: db)
                defer { store.close() }
                for session in try store.sessions() {
                    let points = try store.summary(of: session).trackPointCount
                    let track = try cluster.psql(
                        "gpslog",
                        "SELECT coalesce(ST_NPoints(track), 0), point_count, origin LIKE 'import %' FROM sessions WHERE name = '\(session.name)'"
                    )
                    #expect(track == "\(points)|\(points)|t", "\(session.name)")
                }

                // The sample's id is taken now: a second import gets a new one, as in SQLite.
                let again = try runGPSLog(
                    ["import", "--sample", "--postgres", url], database: dir + "/untouched.sqlite")
                #expect(again.status == 0, "\(again.stderr)")
                let ids = try cluster.psql(
                    "gpslog", "SELECT count(DISTINCT id) FROM sessions WHERE name LIKE 'IJssel%'")
                #expect(ids == "2")
            }
        }
    }

    /// An import of many rows tells PostgreSQL's planner of them at its end, so the web view's first reads of the new
    /// session seek the index instead of sorting the session (the planner took a table it never analyzed for a few
    /// rows).
    @Test func aBigImportTellsThePlannerOfItsRows() throws {
        try withTemporaryDirectory { dir in
            try withPostgresCluster { cluster in
                let count = PostgresDatabase.bulkWriteEntries
                let points = (0..<count).map { i in
                    let time = Timestamp(milliseconds: 1_700_000_000_000 + Int64(i) * 1000).iso8601()
                    return #"<trkpt lat="\#(52 + Double(i) * 1e-5)" lon="4.3"><time>\#(time)</time></trkpt>"#
                }
                let gpx = dir + "/drive.gpx"
                try """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Drive</name><trkseg>
                \(points.joined(separator: "\n"))
                </trkseg></trk></gpx>
                """.write(toFile: gpx, atomically: true, encoding: .utf8)
                let imported = try runGPSLog(
                    ["import", gpx, "--postgres", cluster.socketURL("gpslog")], database: dir + "/untouched.sqlite")
                try #require(imported.status == 0, "\(imported.stderr)")
                #expect(
                    try cluster.psql(
                        "gpslog",
                        """
                        SELECT s.last_analyze IS NOT NULL, c.reltuples::int8 FROM pg_stat_user_tables s
                        JOIN pg_class c ON c.oid = s.relid WHERE s.relname = 'entries'
                        """) == "t|\(count)")
            }
        }
    }

    /// A file the sink cannot take, or a bad file, stores nothing and says why, naming the file.
    @Test func aRefusedFileStoresNothing() throws {
        try withTemporaryDirectory { dir in
            try withPostgresCluster { cluster in
                let url = cluster.socketURL("gpslog")
                let owntracks = dir + "/phone.json"
                try #"{"_type":"location","lat":52.1,"lon":5.1,"tst":1700000000}"#.write(
                    toFile: owntracks, atomically: true, encoding: .utf8)
                let refused = try runGPSLog(["import", owntracks, "--postgres", url], database: dir + "/unused.sqlite")
                #expect(refused.status != 0)
                #expect(
                    refused.stderr.contains("\(owntracks): owntracks files are imported into the SQLite database only"),
                    "\(refused.stderr)")

                // The second track is bad: the first one's session and entries are rolled back with it.
                let bad = dir + "/bad.gpx"
                try Self.marksAndTwoTracks.replacingOccurrences(of: #"lat="52.45""#, with: #"lat="95""#)
                    .write(toFile: bad, atomically: true, encoding: .utf8)
                let failed = try runGPSLog(["import", bad, "--postgres", url], database: dir + "/unused.sqlite")
                #expect(failed.status != 0)
                #expect(failed.stderr.contains(bad) && failed.stderr.contains("95"), "\(failed.stderr)")
                #expect(try cluster.psql("gpslog", "SELECT count(*) FROM sessions") == "0")
                #expect(try cluster.psql("gpslog", "SELECT count(*) FROM entries") == "0")

                let badURL = try runGPSLog(
                    ["import", bad, "--postgres", "http://example.invalid/x"], database: dir + "/unused.sqlite")
                #expect(badURL.status != 0 && badURL.stderr.contains("--postgres must be a URL"), "\(badURL.stderr)")
            }
        }
    }

    /// A GeoJSON export's visits keep their place's name in PostgreSQL, cut to the column's 200 characters as
    /// SQLite cuts it (the `visits.name` CHECK would refuse a longer one, and the import with it).
    @Test func importedVisitsKeepTheirNames() throws {
        try withTemporaryDirectory { dir in
            try withPostgresCluster { cluster in
                let id = "0190c8a0-0000-7000-8000-000000000001"
                let long = String(repeating: "x", count: 300)
                let file = dir + "/day.geojson"
                try """
                {"type":"FeatureCollection","features":[
                {"type":"Feature","geometry":{"type":"LineString","coordinates":[[7,46],[7.001,46]]},"properties":\
                {"kind":"track","name":"Day","session":"\(id)","start":"2024-05-01T06:00:00Z",\
                "coordTimes":["2024-05-01T06:00:00Z","2024-05-01T06:30:00Z"]}},
                {"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]},"properties":{"kind":"visit",\
                "arrival":"2024-05-01T06:00:00Z","departure":"2024-05-01T06:10:00Z","horizontal_accuracy":20,\
                "name":"Alm <hut> & \\"Kaser\\"","address":"Street 1","session":"\(id)"}},
                {"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]},"properties":{"kind":"visit",\
                "arrival":"2024-05-01T06:20:00Z","departure":null,"horizontal_accuracy":20,"name":"\(long)",\
                "session":"\(id)"}}
                ]}
                """.write(toFile: file, atomically: true, encoding: .utf8)
                let imported = try runGPSLog(
                    ["import", file, "--postgres", cluster.socketURL("gpslog")], database: dir + "/unused.sqlite")
                try #require(imported.status == 0, "\(imported.stderr)")
                #expect(
                    try cluster.psql("gpslog", "SELECT name FROM visits ORDER BY arrival")
                        == #"Alm <hut> & "Kaser""# + "\n" + String(repeating: "x", count: 199) + "…")
            }
        }
    }
}
