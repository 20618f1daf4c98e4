// SPDX-License-Identifier: MIT
import Foundation

/// A throwaway PostgreSQL 15 cluster with PostGIS (Debian's `postgresql-15` and `postgresql-15-postgis-3`, installed
/// by `make test`) in a temporary folder: `initdb`, then `pg_ctl start` on a Unix socket in that folder and a
/// random loopback port. The superuser `gpslog` logs in without a password on the socket and with `password` over
/// TCP (scram-sha-256). Stopped and removed by `stop()` (and by `deinit`, when a test failed before it).
///
/// `initdb` and `postgres` refuse to run as root: as root (CI), the cluster belongs to and runs as the system user
/// `postgres` (Debian's packages make it), else `nobody`, through `runuser`.
public final class PostgresCluster {
    /// Debian's folder of the PostgreSQL 15 programs (`initdb`, `pg_ctl`, `postgres`).
    public static let bin = "/usr/lib/postgresql/15/bin"
    /// The temporary folder that holds everything, removed by `stop()`.
    public let folder: String
    /// The folder of the server's Unix socket (`host=` for libpq).
    public let socketFolder: String
    /// The loopback TCP port it listens on.
    public let port: Int
    /// The superuser's name.
    public let user = "gpslog"
    /// The superuser's password over TCP, random for each cluster.
    public let password = "cluster-\(UInt32.random(in: 0...UInt32.max))"
    private let data: String
    private let runAs: String?
    private var stopped = false

    /// What the cluster could not do, with its log.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, then the tool's output or the server's log.
        public var description: String
    }

    /// Starts a cluster; throws `Failure` with initdb's or the server's log when it cannot.
    /// - Parameter tls: TCP only with TLS (a self-signed certificate made by openssl; `hostnossl` rejected).
    /// - Throws: `Failure` with initdb's or the server's log, or the error of a folder or file it could not make.
    public init(tls: Bool = false) throws {
        folder = try makeTemporaryDirectory()
        data = folder + "/data"
        socketFolder = folder + "/run"
        runAs = geteuid() == 0 ? (getpwnam("postgres") != nil ? "postgres" : "nobody") : nil
        let owner = runAs.flatMap { getpwnam($0)?.pointee }
        chmod(folder, 0o711)  // the server's user walks through to its folders
        for dir in [data, socketFolder] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
            if let owner { chown(dir, owner.pw_uid, owner.pw_gid) }
        }
        let passwordFile = socketFolder + "/password"
        try Data(password.utf8).write(to: URL(fileURLWithPath: passwordFile))
        if let owner { chown(passwordFile, owner.pw_uid, owner.pw_gid) }
        let initdb = try PostgresCluster.run(
            runAs,
            [
                PostgresCluster.bin + "/initdb", "-D", data, "-U", user, "--auth-local=trust",
                "--auth-host=scram-sha-256", "--pwfile=" + passwordFile, "-E", "UTF8", "--locale=C", "--no-sync",
            ])
        try? FileManager.default.removeItem(atPath: passwordFile)
        guard initdb.status == 0 else {
            throw Failure(description: "initdb failed (\(initdb.status)):\n\(initdb.output)")
        }
        var tlsOptions = ""
        if tls {
            let made = try PostgresCluster.run(
                nil,
                [
                    "/usr/bin/openssl", "req", "-new", "-x509", "-days", "2", "-nodes", "-subj", "/CN=127.0.0.1",
                    "-keyout", data + "/server.key", "-out", data + "/server.crt",
                ])
            guard made.status == 0 else { throw Failure(description: "openssl failed:\n\(made.output)") }
            for file in ["server.key", "server.crt"] {
                chmod(data + "/" + file, 0o600)
                if let owner { chown(data + "/" + file, owner.pw_uid, owner.pw_gid) }
            }
            try """
            local all all trust
            hostssl all all 127.0.0.1/32 scram-sha-256
            hostnossl all all 127.0.0.1/32 reject

            """.write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
            tlsOptions = " -c ssl=on"
        }
        var lastLog = ""
        for _ in 0..<5 {
            let candidate = try freeLoopbackPort()
            // Durability is not under test: no fsync, so the suite's many commits cost little.
            let options =
                "-k \(socketFolder) -p \(candidate) -h 127.0.0.1 -c fsync=off -c synchronous_commit=off "
                + "-c full_page_writes=off -c max_connections=50" + tlsOptions
            let started = try PostgresCluster.run(
                runAs,
                [
                    PostgresCluster.bin + "/pg_ctl", "-D", data, "-l", data + "/server.log", "-w", "-t", "60", "-o",
                    options, "start",
                ])
            if started.status == 0 {
                port = candidate
                return
            }
            lastLog =
                started.output + "\n" + ((try? String(contentsOfFile: data + "/server.log", encoding: .utf8)) ?? "")
            _ = try? PostgresCluster.run(
                runAs, [PostgresCluster.bin + "/pg_ctl", "-D", data, "-m", "immediate", "stop"])
        }
        try? FileManager.default.removeItem(atPath: folder)
        throw Failure(description: "the PostgreSQL server did not start:\n\(lastLog)")
    }

    /// The server's log (for failure messages).
    public var logText: String { (try? String(contentsOfFile: data + "/server.log", encoding: .utf8)) ?? "" }

    /// A URL to `database` through the Unix socket (no password needed).
    public func socketURL(_ database: String) -> String {
        "postgres://\(user)@/\(database)?host=\(socketFolder)&port=\(port)"
    }

    /// A URL to `database` over TCP on loopback (the password is needed: $PGPASSWORD or a file).
    public func tcpURL(_ database: String) -> String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// Creates a database with PostGIS in it.
    public func createDatabase(_ name: String) throws {
        _ = try psql("postgres", "CREATE DATABASE \(name)")
        _ = try psql(name, "CREATE EXTENSION postgis")
    }

    /// Runs SQL with `psql` (unaligned, tuples only) and returns what it printed; throws with its errors.
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> String {
        let result = try PostgresCluster.run(
            nil,
            [
                "/usr/bin/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", socketFolder, "-p", "\(port)", "-U",
                user, "-d", database, "-c", sql,
            ], separateErrors: true)
        guard result.status == 0 else {
            throw Failure(description: "psql failed on \(sql): \(result.errors)\nserver log:\n\(logText)")
        }
        return result.output.trimmingCharacters(in: .newlines)
    }

    /// Restarts the server (its clients' connections are closed, as in a failover), on the same socket and port.
    public func restart() throws {
        let done = try PostgresCluster.run(
            runAs,
            [PostgresCluster.bin + "/pg_ctl", "-D", data, "-l", data + "/server.log", "-m", "fast", "-w", "restart"])
        guard done.status == 0 else { throw Failure(description: "pg_ctl restart failed:\n\(done.output)\n\(logText)") }
    }

    /// Stops the server at once and removes its folder (safe to call twice).
    public func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? PostgresCluster.run(
            runAs, [PostgresCluster.bin + "/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    deinit { stop() }

    /// Runs a program, as `user` through runuser when given; returns its output (stdout and stderr together unless
    /// `separateErrors`). Spawned and reaped with posix_spawn and waitpid, its output through files: Foundation's
    /// `Process` was seen never to notice the end of `pg_ctl start` (whose server lives on after it).
    static func run(_ user: String?, _ command: [String], separateErrors: Bool = false) throws -> (
        status: Int32, output: String, errors: String
    ) {
        // From /, which the server's user may enter (the test's folder may be closed to it).
        let argv =
            ["/bin/sh", "-c", "cd / && exec \"$@\"", "sh"] + (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? [])
            + command
        let outPath = NSTemporaryDirectory() + "/gpslog-pg-\(UUID().uuidString)"
        let errPath = outPath + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if separateErrors {
            posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnv = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgv + cEnv).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgv, cEnv)
        guard rc == 0 else { throw Failure(description: "cannot run \(argv[0]): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid: \(String(cString: strerror(errno)))") }
        }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (exit, read(outPath), read(errPath))
    }
}

/// Runs `body` with a fresh cluster and a database `gpslog` with PostGIS in it; the cluster is stopped and removed
/// afterwards, also when `body` throws.
public func withPostgresCluster<T>(_ body: (PostgresCluster) throws -> T) throws -> T {
    let cluster = try PostgresCluster()
    defer { cluster.stop() }
    try cluster.createDatabase("gpslog")
    return try body(cluster)
}

/// Async variant of `withPostgresCluster`.
public func withPostgresCluster<T>(_ body: (PostgresCluster) async throws -> T) async throws -> T {
    let cluster = try PostgresCluster()
    defer { cluster.stop() }
    try cluster.createDatabase("gpslog")
    return try await body(cluster)
}
