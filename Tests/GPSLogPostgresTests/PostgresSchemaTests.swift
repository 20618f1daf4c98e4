// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

@testable import GPSLogPostgres

/// gpslog's tables are set up once, however many processes start at once, and a database without PostGIS gets
/// words that say what to do.
@Suite(.ownThreads, .serialized)
struct PostgresSchemaTests {
    @Test func scriptsSplitIntoStatementsWithTheirFunctionBodies() throws {
        let script = try #require(PostgresSchema.all.first)
        let statements = PostgresSchema.statements(script.sql)
        #expect(statements.allSatisfy { $0.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix(";") })
        #expect(statements.contains { $0.contains("CREATE FUNCTION gpslog_time") && $0.contains("$$;") })
        #expect(statements.filter { $0.contains("CREATE TABLE") }.count == 6)
    }

    @Test func twoProcessesStartingAtOnceSetItUpOnce() throws {
        try withPostgresCluster { cluster in
            let location = try PostgresLocation(url: cluster.socketURL("gpslog"))
            let applied = NSLock()
            nonisolated(unsafe) var all: [[Int]] = []
            nonisolated(unsafe) var failures: [String] = []
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                do {
                    let database = try PostgresDatabase(location)
                    defer { database.close() }
                    let versions = try PostgresSchema.prepare(database)
                    applied.withLock { all.append(versions) }
                } catch {
                    applied.withLock { failures.append(error.localizedDescription) }
                }
            }
            #expect(failures.isEmpty, "\(failures)")
            #expect(all.sorted { $0.count > $1.count } == [[1, 2, 3, 4, 5, 6, 7], [], []])
            #expect(try cluster.psql("gpslog", "SELECT count(*) FROM gpslog_schema") == "7")
        }
    }

    @Test func aDatabaseWithoutPostGISSaysWhatToDo() throws {
        try withPostgresCluster { cluster in
            try cluster.psql("postgres", "CREATE ROLE plain LOGIN")
            try cluster.psql("postgres", "CREATE DATABASE plaindb OWNER plain")
            let url = "postgres://plain@/plaindb?host=\(cluster.socketFolder)&port=\(cluster.port)"
            let database = try PostgresDatabase(try PostgresLocation(url: url))
            defer { database.close() }
            do {
                try PostgresSchema.prepare(database)
                Issue.record("a login that may not create PostGIS set up the schema")
            } catch let error as PostgresError {
                guard case .postgisMissing = error else { throw error }
                let words = error.localizedDescription
                #expect(words.contains("CREATE EXTENSION postgis") && words.contains("plaindb"), "\(words)")
            }
            // Nothing of the script stayed behind: it is one transaction.
            #expect(try cluster.psql("plaindb", "SELECT to_regclass('sessions') IS NULL") == "t")
        }
    }
}
