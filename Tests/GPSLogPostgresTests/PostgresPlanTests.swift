// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

@testable import GPSLogPostgres

/// The reader's queries keep their shape on a table PostgreSQL has not analyzed yet (a new database, the minute after
/// a first import): a chart's sample of a session is one ordered index seek per point, never a sort of every row after
/// each point, which made a 12,000-point session's chart take 40 s.
@Suite(.ownThreads)
struct PostgresPlanTests {
    @Test func aSampleSeeksTheIndexOnATableNeverAnalyzed() throws {
        try withPostgresCluster { cluster in
            let database = try PostgresDatabase(try PostgresLocation(url: cluster.socketURL("gpslog")))
            defer { database.close() }
            _ = try PostgresSchema.prepare(database)
            let session = "7755caff-28bc-4491-8ddd-6b579e3f4b23"
            // 12,000 track points, two at each second (rows sharing a time are ordered by their key); no
            // autovacuum, so the planner knows nothing of them when it plans.
            _ = try cluster.psql(
                "gpslog",
                """
                ALTER TABLE entries SET (autovacuum_enabled = false);
                INSERT INTO sessions (id, name, start_time, origin) VALUES ('\(session)', 'van', now(), 'serve');
                INSERT INTO entries (id, session_id, time, latitude, longitude)
                SELECT md5(i::text)::uuid, '\(session)', gpslog_time(1709000000000 + (i / 2) * 1000), 52, 4.3
                FROM generate_series(0, 11999) AS g(i);
                """)
            #expect(try cluster.psql("gpslog", "SELECT reltuples < 0 FROM pg_class WHERE relname = 'entries'") == "t")
            let plan = try cluster.psql(
                "gpslog",
                """
                PREPARE sample(uuid, int8, int8, int8) AS \(PostgresSessionReader.sampleQuery);
                EXPLAIN (ANALYZE, FORMAT JSON, TIMING false)
                EXECUTE sample('\(session)', 1709000000000, 1709006000000, 5000);
                """)
            let nodes = Self.nodes(try JSONSerialization.jsonObject(with: Data(plan.utf8)))
            let sorts = nodes.filter { ($0["Node Type"] as? String)?.hasSuffix("Sort") == true }
            let scans = nodes.filter { $0["Relation Name"] as? String == "entries" }
            // One sort, of the 5,000 samples by their number; each seek reads the index in order and stops at its
            // first row (a sort per seek read 6,000 rows on average).
            #expect(sorts.count == 1 && sorts.first?["Actual Rows"] as? Int == 5_000, "\(plan)")
            #expect(scans.count == 1 && scans.first?["Index Name"] as? String == "entries_session_time_key", "\(plan)")
            #expect(
                scans.first?["Actual Loops"] as? Int == 5_000 && scans.first?["Actual Rows"] as? Int == 1, "\(plan)")
        }
    }

    /// Every node of an `EXPLAIN (FORMAT JSON)` plan.
    static func nodes(_ json: Any) -> [[String: Any]] {
        var found: [[String: Any]] = []
        func walk(_ node: [String: Any]) {
            found.append(node)
            for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child) }
        }
        for top in json as? [[String: Any]] ?? [] {
            if let plan = top["Plan"] as? [String: Any] { walk(plan) }
        }
        return found
    }
}
