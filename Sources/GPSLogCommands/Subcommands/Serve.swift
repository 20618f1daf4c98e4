// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogPostgres
import GPSLogReceiver
import GPSLogRecording
import GPSLogStore
import GPSLogView

extension GPSLog {
    /// Receives Overland batches and OwnTracks HTTP posts into sessions, one per device.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Receive Overland batches and OwnTracks HTTP posts (from phones or `gpslog upload`) into sessions.",
            discussion: """
                Point Overland's Receiver Endpoint, OwnTracks' HTTP URL, or `gpslog upload --url` at \
                http://HOST:PORT/ (any path); Traccar Client, OsmAnd and GPSLogger's custom URL too (a location in \
                the URL or a form, taken only with --token, given as ?token=TOKEN), and Dawarich's clients \
                (?api_key=TOKEN). Each device gets a session (Overland: its device_id, a new session per \
                trip; OwnTracks: user/device). A payload is checked whole and stored in one transaction before the \
                answer ({"result":"ok"}, or [] for OwnTracks); a bad one gets a 4xx JSON error and changes nothing; a \
                location already stored (same device and time) is not stored twice. With --token, requests must carry \
                Authorization: Bearer TOKEN, ?access_token=TOKEN, or the token as the Basic password (OwnTracks). Once the database has devices (`gpslog device add USER/DEVICE`), every request needs a token, and a device's token writes only as that device: a payload naming another is refused (403).                 With --store postgres://..., payloads go into PostgreSQL with PostGIS instead (gpslog's tables are                 created when missing): several serve processes behind a load balancer share one database, with the                 same rules (duplicates by device and time refused by a unique index). The web view then reads                 the sessions, the statistics, the days and the history map from PostgreSQL too (its logins stay in the SQLite database).
                """)

        @OptionGroup var global: GlobalOptions
        @Option(help: "Address and port to listen on (port 0: any free port).") var listen: String = "127.0.0.1:8080"
        @Option(help: "Token every request must carry (default: $GPSLOG_TOKEN). Required when not on loopback.")
        var token: String?
        @Option(help: ArgumentHelp("File holding that token (one trailing newline is ignored).", valueName: "path"))
        var tokenFile: String?
        @Option(
            help: ArgumentHelp(
                "Where payloads go: the SQLite database (default), or postgres://USER@HOST:PORT/DATABASE (the web view then reads it too).",
                valueName: "url"))
        var store: String?
        @OptionGroup var postgres: PostgresOptions
        @OptionGroup(title: "MQTT") var mqtt: MQTTOptions
        @OptionGroup(title: "Web view") var view: ViewOptions
        @Flag(help: "Log every request.") var verbose = false

        var hostPort: (host: String, port: Int)? {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
                (0...65535).contains(port)
            else { return nil }
            var host = String(listen[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return (host.isEmpty ? "127.0.0.1" : host, port)
        }

        func isLoopback(_ host: String) -> Bool { ["127.0.0.1", "localhost", "::1"].contains(host) }

        /// True when the SQLite database that holds the accounts has devices (`gpslog device add`).
        func hasDevices() -> Bool {
            let file = store.map { PostgresOptions.isPostgres($0) ? global.databasePath : $0 } ?? global.databasePath
            guard FileManager.default.fileExists(atPath: file), let store = try? Store(path: file) else { return false }
            defer { store.close() }
            return (try? store.hasDevices()) ?? false
        }

        func resolvedToken() throws -> AccessToken? { try AccessToken.fromCommandLine(token, file: tokenFile) }

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            guard let hp = hostPort else {
                throw ValidationError("--listen must be HOST:PORT, e.g. 127.0.0.1:8080 or 0.0.0.0:8080.")
            }
            let loopback = isLoopback(hp.host)
            let token = try resolvedToken()
            if !view.noView { _ = try view.viewToken(serveToken: token, offLoopback: !loopback) }
            if !loopback {
                guard let token else {
                    if hasDevices() { return }  // device tokens are asked for (see DeviceAuthority)
                    throw ValidationError(
                        "Listening on \(hp.host) lets anyone on the network write into your database: give --token (or $GPSLOG_TOKEN)."
                    )
                }
                do {
                    try token.checkStrongEnoughOffLoopback(
                        origin: self.token != nil ? "--token" : tokenFile != nil ? "--token-file" : "$GPSLOG_TOKEN")
                } catch {
                    throw ValidationError(error.errorDescription ?? "token too short")
                }
            }
        }

        func run() async throws {
            let logger = LogSetup.makeStderrLogger(label: "gpslog.serve", verbose: verbose)
            let path = global.databasePath
            let (host, port) = hostPort!
            var receiver = Receiver(databasePath: path, token: try resolvedToken(), logger: logger)
            var database = path
            if let store, PostgresOptions.isPostgres(store) {
                let location = try postgres.location(store)
                database = location.description
                // Connected (and the schema set up) before listening: a wrong URL or password fails at once.
                let backend = PostgresBackend(try PostgresReceiverStore(location))
                let opened = OpenedOnce(backend)
                receiver.openStore = { try opened.take() }
                // Users and devices stay in the SQLite database, when there is one.
                receiver.accountsDatabase = FileManager.default.fileExists(atPath: path) ? path : nil
                if !view.noView {
                    // The view reads the sessions from PostgreSQL; its logins (and users) are kept in the SQLite
                    // database, made when missing.
                    try Store.prepareFile(at: path)
                    try global.openStore().close()
                    let userName: @Sendable (Int64) throws -> String? = { key in
                        let accounts = try Store(path: path)
                        defer { accounts.close() }
                        return try accounts.userName(key: key)
                    }
                    receiver.routes = try view.routes(
                        database: path, sessions: { try PostgresSessionReader(location, userName: userName) },
                        token: try resolvedToken(), offLoopback: !isLoopback(host), logger: logger)
                    if receiver.routes != nil { receiver.routedPosts = WebView.postPaths }
                }
            } else {
                if let store { database = store }
                try Store.prepareFile(at: database)
                // Created, or an older database upgraded with its progress bar, before the receiver opens it.
                var options = global
                options.db = database
                try options.openStore().close()
                let file = database
                receiver.openStore = { try Store(path: file) }
                receiver.accountsDatabase = file
                receiver.routes = try view.routes(
                    database: file, token: try resolvedToken(), offLoopback: !isLoopback(host), logger: logger)
                if receiver.routes != nil { receiver.routedPosts = WebView.postPaths }
            }
            // The database names the session: a file by its full path, PostgreSQL by its URL without the password.
            let identity =
                PostgresOptions.isPostgres(database)
                ? database : URL(fileURLWithPath: database).standardizedFileURL.resolvingSymlinksInPath().path
            receiver.mqtt = try mqtt.subscription(database: identity)
            let shown = database
            try await receiver.run(host: host, port: port) { bound in
                // One line on stdout, so scripts (and tests) learn the port when it was 0.
                let line =
                    "Listening on http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/ (database \(shown))\n"
                // write(2), not FileHandle.write, which traps on a write error: a serve whose standard output was
                // closed or is a read-only file (seen under a loaded test run) must go on serving.
                _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
                ServiceNotifier(logger: logger)?.send(["READY=1", "STATUS=listening on \(host):\(bound)"])
            }
        }
    }
}
