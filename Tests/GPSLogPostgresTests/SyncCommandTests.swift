// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// A row as both databases can print it: entry id, time in ms, latitude and longitude (exact doubles).
struct SyncedRow: Hashable {
    var id: String
    var time: Int64
    var latitude: Double
    var longitude: Double
}

/// The entries of every session of a SQLite store, by session id.
func sqliteRows(_ path: String) throws -> [String: [SyncedRow]] {
    let store = try Store(path: path)
    defer { store.close() }
    var rows: [String: [SyncedRow]] = [:]
    for session in try store.sessions() {
        rows[session.id] = try store.entries(of: session.id).all().map {
            SyncedRow(id: $0.id, time: $0.time.milliseconds, latitude: $0.latitude, longitude: $0.longitude)
        }
    }
    return rows
}

/// The entries in PostgreSQL, by session id, in the same order (time, then insertion: the ids are v7, in time order
/// within a session, so ties sort alike in both).
func postgresRows(_ cluster: PostgresCluster, _ database: String = "gpslog") throws -> [String: [SyncedRow]] {
    let text = try cluster.psql(
        database,
        "SELECT session_id, id, gpslog_ms(time), latitude, longitude FROM entries ORDER BY session_id, time, id")
    var rows: [String: [SyncedRow]] = [:]
    for line in text.split(separator: "\n") {
        let f = line.split(separator: "|").map(String.init)
        rows[f[0], default: []].append(
            SyncedRow(id: f[1], time: Int64(f[2])!, latitude: Double(f[3])!, longitude: Double(f[4])!))
    }
    return rows
}

/// Sorts each session's rows the same way on both sides (time, then id).
func normalised(_ rows: [String: [SyncedRow]]) -> [String: [SyncedRow]] {
    rows.mapValues { $0.sorted { ($0.time, $0.id) < ($1.time, $1.id) } }
}

/// `gpslog sync` of real tracks: the rows arrive exactly (ids, times, coordinates), each session's LineString has its
/// track points, a second sync sends nothing, and a killed sync resumes with every row stored once.
@Suite(.ownThreads, .serialized)
struct SyncCommandTests {
    @Test func syncsAnImportedGPXExactly() throws {
        try withTemporaryDirectory { dir in
            try withPostgresCluster { cluster in
                let db = dir + "/gpslog.sqlite"
                let gpx = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"
                let imported = try runGPSLog(["import", gpx], database: db)
                try #require(imported.status == 0, "\(imported.stderr)")
                let url = cluster.socketURL("gpslog")
                let first = try runGPSLog(["sync", url], database: db)
                try #require(first.status == 0, "\(first.stderr)\n\(cluster.logText)")
                let local = try sqliteRows(db)
                let total = local.values.map(\.count).reduce(0, +)
                #expect(total > 3000)
                #expect(first.stdout.contains("\(total) new entries"), "\(first.stdout)")
                #expect(normalised(try postgresRows(cluster)) == normalised(local))

                // Each session's track: a LineString of its track points, in SRID 4326.
                let store = try Store(path: db)
                defer { store.close() }
                for session in try store.sessions() {
                    let summary = try store.summary(of: session)
                    let track = try cluster.psql(
                        "gpslog",
                        "SELECT ST_NPoints(track), point_count, ST_SRID(track), GeometryType(track), name FROM sessions WHERE id = '\(session.id)'"
                    )
                    #expect(
                        track == "\(summary.trackPointCount)|\(summary.trackPointCount)|4326|LINESTRING|\(session.name)"
                    )
                }
                // The geometry is the row's coordinates.
                let off = try cluster.psql(
                    "gpslog", "SELECT count(*) FROM entries WHERE ST_X(geom) <> longitude OR ST_Y(geom) <> latitude")
                #expect(off == "0")

                let again = try runGPSLog(["sync", url], database: db)
                #expect(again.status == 0, "\(again.stderr)")
                #expect(
                    again.stdout.contains(": 0 new entries in 0 transactions, 0 sessions new or changed."),
                    "\(again.stdout)")
                let dry = try runGPSLog(["sync", url, "--dry-run"], database: db)
                #expect(dry.stdout.hasPrefix("Would send 0 entries of 0 sessions to postgres://"), "\(dry.stdout)")
            }
        }
    }

    @Test func aKilledSyncResumesAndStoresEveryRowOnce() async throws {
        try await withTemporaryDirectory { dir in
            try await withPostgresCluster { cluster in
                let db = dir + "/gpslog.sqlite"
                let store = try Store(path: db)
                let session = try store.createSession(
                    name: "Long drive", start: Timestamp(milliseconds: 1_700_000_000_000))
                var rng = SystemRandomNumberGenerator()
                let count = 120_000
                let entries = (0..<count).map { i -> Entry in
                    let time = Timestamp(milliseconds: 1_700_000_000_000 + Int64(i) * 1000)
                    return Entry(
                        id: Identifier.uuidV7(time: time, using: &rng), latitude: 52 + Double(i) * 1e-6,
                        longitude: 4 + Double(i % 977) * 1e-5, time: time, speed: Double(i % 30))
                }
                try store.append(entries, to: session.id)
                store.close()
                let url = cluster.socketURL("gpslog")
                let dry = try runGPSLog(["sync", url, "--dry-run"], database: db)
                #expect(
                    dry.stdout.hasPrefix("Would send \(count) entries of 1 session to postgres://"), "\(dry.stdout)")

                // The kill must come while the sync runs, however slowly this loaded machine polls: the schema is
                // made by a sync of another, empty file; then PostgreSQL itself slows every batch past the first
                // 5,000 rows to a second (a statement trigger that sleeps), so the sync cannot finish first.
                let empty = dir + "/empty.sqlite"
                try Store(path: empty).close()
                #expect(try runGPSLog(["sync", url], database: empty).status == 0)
                _ = try cluster.psql(
                    "gpslog",
                    """
                    CREATE FUNCTION slow_down() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN IF (SELECT count(*) FROM entries) >= 5000 THEN PERFORM pg_sleep(1); END IF; RETURN NULL; END $$;
                    CREATE TRIGGER slow_down AFTER INSERT ON entries FOR EACH STATEMENT EXECUTE FUNCTION slow_down();
                    """)
                let killed = try BackgroundGPSLog(
                    ["sync", url, "--batch-size", "1000"], database: db, folder: dir + "/killed")
                let partway = await waitUntilAsync(timeout: 120) {
                    let stored = Int((try? cluster.psql("gpslog", "SELECT count(*) FROM entries")) ?? "") ?? 0
                    return stored >= 5_000 || !killed.process.isRunning
                }
                try #require(
                    partway && killed.process.isRunning, "sync ended before it could be killed: \(killed.stderr)")
                kill(killed.process.processIdentifier, SIGKILL)
                _ = await killed.exitStatus(timeout: 30)
                _ = try cluster.psql("gpslog", "DROP TRIGGER slow_down ON entries; DROP FUNCTION slow_down();")
                let stored = Int(try cluster.psql("gpslog", "SELECT count(*) FROM entries"))!
                #expect(stored > 0 && stored < count, "\(stored) rows after the kill")

                let resumed = try await runGPSLogAsync(["sync", url], database: db, folder: dir)
                try #require(resumed.status == 0, "\(resumed.stderr)")
                // Exactly the SQLite rows, once each: the count, and every id with its time and place.
                #expect(
                    try cluster.psql("gpslog", "SELECT count(*), count(DISTINCT id) FROM entries")
                        == "\(count)|\(count)")
                #expect(normalised(try postgresRows(cluster)) == normalised(try sqliteRows(db)))
                #expect(
                    try cluster.psql("gpslog", "SELECT ST_NPoints(track), track_outdated FROM sessions") == "\(count)|f"
                )
                // What the killed sync committed is not sent as new again (a batch committed just before the kill, whose
                // cursor was not saved, is sent again and counted as there already).
                #expect(resumed.stdout.contains(": \(count - stored) new entries"), "\(resumed.stdout)")
                // A sync of so many rows tells the planner of them itself (a manual ANALYZE, not autovacuum's).
                #expect(
                    try cluster.psql(
                        "gpslog", "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'entries'")
                        == "t")
            }
        }
    }

    @Test func syncsTransitionsVisitsAndWhatChangedInSQLite() throws {
        try withTemporaryDirectory { dir in
            try withPostgresCluster { cluster in
                let db = dir + "/gpslog.sqlite"
                let store = try Store(path: db)
                defer { store.close() }
                let start = Timestamp(milliseconds: 1_700_000_000_000)
                let session = try store.createSession(name: "Walk", start: start)
                var rng = SystemRandomNumberGenerator()
                try store.append(
                    (0..<10).map { i in
                        let time = start.adding(milliseconds: Int64(i) * 1000)
                        return Entry(
                            id: Identifier.uuidV7(time: time, using: &rng), latitude: 52.37, longitude: 4.89, time: time
                        )
                    }, to: session.id)
                let home = Region(
                    name: "Home", latitude: 52.37, longitude: 4.89, radius: 50, regionID: "h1", created: start)
                _ = try store.addTransition(
                    Transition(
                        region: home, event: .enter, time: start.adding(milliseconds: 5000), latitude: 52.37,
                        longitude: 4.89, horizontalAccuracy: 5), to: session.id)
                var visit = Visit(
                    latitude: 52.37, longitude: 4.89, horizontalAccuracy: 20, arrival: start.adding(milliseconds: 2000),
                    departure: nil, name: "Hut")
                visit.key = try store.addVisit(visit, to: session.id)
                let url = cluster.socketURL("gpslog")
                let first = try runGPSLog(["sync", url], database: db)
                #expect(
                    first.stdout.contains("10 new entries") && first.stdout.contains("1 transition, 1 visit."),
                    "\(first.stdout) \(first.stderr)")
                // The repeated place (a phone at rest) stays ten points in the line.
                #expect(try cluster.psql("gpslog", "SELECT ST_NPoints(track) FROM sessions") == "10")
                #expect(try cluster.psql("gpslog", "SELECT name FROM visits") == "Hut")

                try store.renameSession(id: session.id, to: "Evening walk")
                visit.departure = start.adding(milliseconds: 8000)
                try store.setDeparture(of: visit)
                let second = try runGPSLog(["sync", url], database: db)
                #expect(
                    second.stdout.contains("0 new entries in 0 transactions, 1 session new or changed, 1 visit."),
                    "\(second.stdout)")
                #expect(try cluster.psql("gpslog", "SELECT name FROM sessions") == "Evening walk")
                #expect(try cluster.psql("gpslog", "SELECT gpslog_ms(departure) FROM visits") == "1700000008000")
                #expect(
                    try cluster.psql("gpslog", "SELECT region_name, event, region_radius FROM transitions")
                        == "Home|enter|50")

                let third = try runGPSLog(["sync", url], database: db)
                #expect(third.stdout.hasSuffix("0 sessions new or changed.\n"), "\(third.stdout)")

                // A name given after a sync, or taken away, goes with the next one.
                let name = #"Alm <hut> & "Kaser" 🏔"#
                try store.setVisitName(name, keys: [visit.key!])
                let renamed = try runGPSLog(["sync", url], database: db)
                #expect(renamed.stdout.hasSuffix("1 visit.\n"), "\(renamed.stdout)")
                #expect(try cluster.psql("gpslog", "SELECT name FROM visits") == name)
                try store.setVisitName(nil, keys: [visit.key!])
                let unnamed = try runGPSLog(["sync", url], database: db)
                #expect(unnamed.stdout.hasSuffix("1 visit.\n"), "\(unnamed.stdout)")
                #expect(try cluster.psql("gpslog", "SELECT name IS NULL FROM visits") == "t")
                let unchanged = try runGPSLog(["sync", url], database: db)
                #expect(unchanged.stdout.hasSuffix("0 sessions new or changed.\n"), "\(unchanged.stdout)")
            }
        }
    }

    @Test func aWrongPasswordSaysWhereAndNeverPrintsIt() throws {
        try withTemporaryDirectory { dir in
            try withPostgresCluster { cluster in
                let db = dir + "/gpslog.sqlite"
                let url = "postgres://\(cluster.user):wrong-secret@127.0.0.1:\(cluster.port)/gpslog"
                let refused = try runGPSLog(["sync", url], database: db)
                #expect(refused.status != 0)
                #expect(!refused.stderr.contains("wrong-secret") && !refused.stdout.contains("wrong-secret"))
                #expect(
                    refused.stderr.contains("postgres://\(cluster.user)@127.0.0.1:\(cluster.port)/gpslog"),
                    "\(refused.stderr)")
                #expect(refused.stderr.contains("password authentication failed"), "\(refused.stderr)")
                // The right one from a file, over TCP (TLS off on loopback).
                let file = dir + "/pw"
                try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: file))
                chmod(file, 0o600)
                let fine = try runGPSLog(
                    ["sync", cluster.tcpURL("gpslog"), "--postgres-password-file", file], database: db)
                #expect(fine.status == 0, "\(fine.stderr)")
                let viaEnvironment = try runGPSLog(
                    ["sync", cluster.tcpURL("gpslog")], database: db, environment: ["PGPASSWORD": cluster.password])
                #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
                #expect(
                    try cluster.psql("gpslog", "SELECT version, file FROM gpslog_schema ORDER BY version")
                        == "1|001_schema.sql\n2|002_received_once_by_place.sql\n3|003_visit_names.sql\n4|004_entry_attributes.sql\n"
                        + "5|005_day_figures.sql\n6|006_entries_in_key_order.sql\n7|007_history_tiles.sql"
                )
            }
        }
    }

    @Test func sslmodeRequireIsHonoured() throws {
        try withTemporaryDirectory { dir in
            let cluster = try PostgresCluster(tls: true)
            defer { cluster.stop() }
            try cluster.createDatabase("gpslog")
            let db = dir + "/gpslog.sqlite"
            let password = ["PGPASSWORD": cluster.password]
            // TLS is off on loopback unless asked for: this server refuses a connection without it.
            let plain = try runGPSLog(["sync", cluster.tcpURL("gpslog")], database: db, environment: password)
            #expect(plain.status != 0 && plain.stderr.contains("no encryption"), "\(plain.stderr)")
            let tls = try runGPSLog(
                ["sync", cluster.tcpURL("gpslog") + "?sslmode=require"], database: db, environment: password)
            #expect(tls.status == 0, "\(tls.stderr)\n\(cluster.logText)")
            // verify-full checks the certificate: a self-signed one is refused.
            let checked = try runGPSLog(
                ["sync", cluster.tcpURL("gpslog") + "?sslmode=verify-full"], database: db, environment: password)
            #expect(checked.status != 0 && checked.stderr.contains("Cannot connect to"), "\(checked.stderr)")
        }
    }
}
