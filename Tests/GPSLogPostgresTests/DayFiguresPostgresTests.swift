// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogPostgres
import GPSLogStore
import GPSLogTestSupport
import Testing

/// PostgreSQL's kept per-day figures (`Schema/postgres/005_day_figures.sql`): every write to the entries, in
/// whatever order and by whatever client (here plain SQL through psql), notes the days whose figures it changed, and
/// the next read counts those again; what is kept then equals a count of every day from scratch.
@Suite(.ownThreads)
struct DayFiguresPostgresTests {
    static let session = "00000000-0000-4000-8000-00000000d001"
    static let columns = """
        session_id, day, entries, track_points, marks, heading_changes, fixes, first_track_ms, last_track_ms,
        min_latitude, max_latitude, min_longitude, max_longitude, max_speed, length_nm, moving_ms, cells
        """
    /// 2024-05-01 as days since 1970.
    static let day1 = 19_844

    @Test(.timeLimit(.minutes(10)))
    func everyChangeToTheEntriesIsCountedAgainOnTheNextRead() throws {
        try withPostgresCluster { cluster in
            let location = try PostgresLocation(url: cluster.socketURL("gpslog"))
            let setup = try PostgresDatabase(location)
            try PostgresSchema.prepare(setup)
            setup.close()
            let reader = try PostgresSessionReader(location) { _ in nil }
            defer { reader.close() }
            let sql = { (text: String) throws -> String in try cluster.psql("gpslog", text) }
            func kept() throws -> String {
                try reader.refreshDayFigures()
                #expect(try reader.staleDayCount() == 0)
                return try sql("SELECT \(Self.columns) FROM day_figures ORDER BY session_id, day")
            }
            /// The days noted since the last read, as offsets from 2024-05-01.
            func noted() throws -> [Int] {
                try sql("SELECT day - \(Self.day1) FROM day_figures_stale ORDER BY day").split(separator: "\n")
                    .compactMap { Int($0) }
            }
            /// Kept equals a count of every day from scratch.
            func expectKeptIsACount(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let incremental = try kept()
                _ = try sql(
                    """
                    DELETE FROM day_figures;
                    INSERT INTO day_figures_stale (session_id, day)
                    SELECT DISTINCT session_id, floor(gpslog_ms(time) / 86400000.0)::int8 FROM entries
                    ON CONFLICT DO NOTHING
                    """)
                let scratch = try kept()
                #expect(incremental == scratch, "\(step):\n\(incremental)\n\(scratch)", sourceLocation: sourceLocation)
                #expect(!incremental.isEmpty, "\(step)", sourceLocation: sourceLocation)
            }
            let point = { (time: String, lat: String, lon: String) in
                "(gen_random_uuid(), '\(Self.session)', timestamptz \(time), \(lat), \(lon), 1.2)"
            }
            let insert = "INSERT INTO entries (id, session_id, time, latitude, longitude, speed) VALUES "

            // Three days of a walk, a point every 10 minutes, a mark and a heading change.
            _ = try sql(
                """
                INSERT INTO sessions (id, name, start_time, origin)
                VALUES ('\(Self.session)', 'walk', '2024-05-01T00:00:00Z', 'sync test');
                INSERT INTO entries (id, session_id, time, latitude, longitude, speed)
                SELECT gen_random_uuid(), '\(Self.session)', timestamptz '2024-05-01T00:00:00Z' + i * interval '10 minutes',
                    52 + i * 0.0005, 5 + sin(i / 10.0) * 0.01, 1.2
                FROM generate_series(0, 431) i;
                INSERT INTO entries (id, session_id, time, latitude, longitude, marked, label)
                VALUES (gen_random_uuid(), '\(Self.session)', '2024-05-02T12:00:00Z', 52.1, 5.0, true, 'Lunch');
                INSERT INTO entries (id, session_id, time, latitude, longitude, is_heading_changed, heading)
                VALUES (gen_random_uuid(), '\(Self.session)', '2024-05-03T01:00:00Z', 53.1, 6.0, true, 90)
                """)
            #expect(try noted() == [0, 1, 2])
            try expectKeptIsACount("the first three days")
            let summary = try #require(try reader.summaries().first)
            #expect(summary.entryCount == 434 && summary.trackPointCount == 432 && summary.markCount == 1)
            #expect(summary.headingChangeCount == 1 && summary.distance > 1_000, "\(summary)")

            // Points written into the middle of day 2, out of order: that day only.
            _ = try sql(
                insert + (1...5).map { point("'2024-05-02T10:0\($0):00Z'", "52.3", "5.2") }.joined(separator: ", "))
            #expect(try noted() == [1])
            try expectKeptIsACount("points into the middle")

            // A point at the very end of day 1: day 2's first step now starts from it.
            _ = try sql(insert + point("'2024-05-01T23:59:59Z'", "51.0", "4.0"))
            #expect(try noted() == [0, 1])
            try expectKeptIsACount("a point before midnight")

            // Day 2's afternoon deleted: day 3's first step now starts from day 2's noon.
            _ = try sql(
                "DELETE FROM entries WHERE time >= '2024-05-02T12:10:00Z' AND time < '2024-05-03T00:00:00Z'")
            #expect(try noted() == [1, 2])
            try expectKeptIsACount("an afternoon deleted")

            // A point moved; an address geocoded changes no figure and notes nothing.
            _ = try sql("UPDATE entries SET latitude = latitude + 0.01 WHERE time = '2024-05-03T05:00:00Z'")
            #expect(try noted() == [2])
            try expectKeptIsACount("a point moved")
            _ = try sql("UPDATE entries SET address = 'Dam 1' WHERE time = '2024-05-03T06:00:00Z'")
            #expect(try noted() == [])

            // A flight: points too fast for the ground reach no cell.
            _ = try sql(
                insert + point("'2024-05-03T07:01:00Z'", "55.0", "9.0") + ", "
                    + point("'2024-05-03T07:02:00Z'", "55.5", "9.5"))
            try expectKeptIsACount("a flight")

            // Day 2 emptied, then one point back: day 3's first step spans the gap, from day 1's last.
            _ = try sql(
                "DELETE FROM entries WHERE time >= '2024-05-02T00:00:00Z' AND time < '2024-05-03T00:00:00Z'")
            try expectKeptIsACount("a day emptied")
            #expect(!(try kept()).contains("|\(Self.day1 + 1)|"))
            _ = try sql(insert + point("'2024-05-02T09:00:00Z'", "52.2", "5.1"))
            #expect(try noted() == [1, 2])
            try expectKeptIsACount("a point into the empty day")

            // The session deleted: its figures go with it.
            _ = try sql("DELETE FROM sessions WHERE id = '\(Self.session)'")
            #expect(try kept().isEmpty)
            #expect(try reader.summaries().isEmpty)
        }
    }
}
