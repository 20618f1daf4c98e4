// SPDX-License-Identifier: MIT
import GPSLogPostgres
import GPSLogTestSupport
import Testing

/// `postgres://` URLs as libpq writes them, and the password never printed.
@Suite(.ownThreads)
struct PostgresLocationTests {
    @Test func readsHostPortDatabaseAndTLS() throws {
        let tcp = try PostgresLocation(url: "postgres://fleet@db.example:6543/tracks?sslmode=require", environment: [:])
        #expect(tcp.user == "fleet" && tcp.host == "db.example" && tcp.port == 6543 && tcp.database == "tracks")
        #expect(tcp.tls == .require && tcp.socketPath == nil)
        // Off loopback TLS is preferred, on loopback it is off unless asked for.
        #expect(try PostgresLocation(url: "postgres://u@db.example/x", environment: [:]).tls == .prefer)
        #expect(try PostgresLocation(url: "postgres://u@127.0.0.1/x", environment: [:]).tls == .disable)
        #expect(try PostgresLocation(url: "postgres://u@[::1]:5433/x", environment: [:]).host == "::1")
    }

    @Test func readsUnixSockets() throws {
        let socket = try PostgresLocation(
            url: "postgres:///tracks?host=/tmp/pg&port=5999", environment: ["USER": "ann"])
        #expect(socket.socketPath == "/tmp/pg/.s.PGSQL.5999" && socket.user == "ann" && socket.database == "tracks")
        #expect(socket.description == "postgres://ann@/tracks?host=/tmp/pg&port=5999")
        let plain = try PostgresLocation(url: "postgres://bob@/bob", environment: [:])
        #expect(plain.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(throws: PostgresError.self) {
            try PostgresLocation(url: "postgres:///x?host=/tmp&sslmode=require", environment: [:])
        }
    }

    @Test func neverPrintsThePassword() throws {
        let url = "postgres://fleet:hunter2@db.example/tracks"
        let location = try PostgresLocation(url: url, environment: [:])
        #expect(location.password == "hunter2")
        #expect(location.description == "postgres://fleet@db.example/tracks")
        #expect(PostgresLocation.masking(url) == "postgres://fleet:***@db.example/tracks")
        do {
            _ = try PostgresLocation(url: "postgres://fleet:hunter2@db.example:99999/tracks", environment: [:])
            Issue.record("a port of 99999 was taken")
        } catch {
            let words = error.localizedDescription
            #expect(!words.contains("hunter2") && words.contains("fleet:***@") && words.contains("99999"), "\(words)")
        }
    }

    @Test func takesThePasswordFromTheEnvironmentOrAFile() throws {
        let location = try PostgresLocation(url: "postgres://u@h/d", environment: [:])
        #expect(try location.resolvingPassword(file: nil, environment: ["PGPASSWORD": "env"]).password == "env")
        #expect(try location.resolvingPassword(file: nil, environment: [:]).password == nil)
        #expect(throws: PostgresError.self) {
            try location.resolvingPassword(file: "/nonexistent/pw", environment: [:])
        }
    }
}
