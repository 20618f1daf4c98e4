// SPDX-License-Identifier: MIT
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One connection to a PostgreSQL database, owned by this object: opened by `init`, closed by `close()`.
///
/// Concurrency model: every call blocks its caller until the server answered. The connection lives on an event loop
/// of a group this object starts and stops, so the caller may be any thread but that loop: a command's thread, or
/// the receiver's `StoreThread` (an event loop of another group; NIO's own `wait()` refuses every event-loop thread,
/// so a semaphore waits here). Blocking is what the receiver's store protocols ask for (synchronous calls on a
/// thread of their own, one payload at a time), and it keeps a transaction's statements in order on one connection.
/// Not `Sendable`: one user at a time, like `Store`.
public final class PostgresDatabase {
    /// Where the connection goes (its description is the URL without the password).
    public let location: PostgresLocation
    private let group: MultiThreadedEventLoopGroup
    private let connection: PostgresConnection
    private let logger: Logger
    private var closed = false

    /// Connects (TLS as `location.tls` says), and sets the session's time zone to UTC.
    /// - Throws: `PostgresError.cannotConnect`, or `.server` (a refused login) with the server's message.
    public init(_ location: PostgresLocation, logger: Logger? = nil) throws {
        self.location = location
        self.logger = logger ?? Logger(label: "gpslog.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            var configuration: PostgresConnection.Configuration
            if let socket = location.socketPath {
                configuration = .init(
                    unixSocketPath: socket, username: location.user, password: location.password,
                    database: location.database)
            } else {
                configuration = .init(
                    host: location.host ?? "localhost", port: location.port, username: location.user,
                    password: location.password, database: location.database,
                    tls: try PostgresDatabase.tls(location.tls))
            }
            configuration.options.connectTimeout = .seconds(15)
            connection = try PostgresDatabase.waitFor(
                PostgresConnection.connect(on: group.next(), configuration: configuration, id: 1, logger: self.logger))
        } catch {
            group.shutdownGracefully { _ in }
            throw PostgresError.from(error, database: location.description, doing: "the login")
        }
        do {
            try execute("SET TIME ZONE 'UTC'", doing: "setting the time zone")
        } catch {
            close()
            throw error
        }
    }

    /// TLS as libpq's sslmode: `prefer` and `require` do not check the certificate (as libpq), `verify-full` does.
    static func tls(_ mode: PostgresLocation.TLSMode) throws -> PostgresConnection.Configuration.TLS {
        var unchecked = TLSConfiguration.makeClientConfiguration()
        unchecked.certificateVerification = .none
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: unchecked))
        case .require: return .require(try NIOSSLContext(configuration: unchecked))
        case .verifyFull: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    /// True once the connection is closed: by `close()`, or by the server (a restart, a failover, a killed backend).
    public var isBroken: Bool { closed || connection.isClosed }

    /// Closes the connection and ends its thread (safe to call twice).
    public func close() {
        guard !closed else { return }
        closed = true
        try? PostgresDatabase.waitFor(connection.close())
        // Not `syncShutdownGracefully`: NIO refuses it on any event-loop thread, and the receiver's StoreThread is
        // one. The connection is closed already; the thread ends on its own.
        group.shutdownGracefully { _ in }
    }

    deinit {
        // A caller that threw before `close` still frees the socket and the thread.
        close()
    }

    // MARK: - Statements

    /// Runs one statement and returns its rows.
    /// - Parameters:
    ///   - sql: the statement, with `$1`, `$2`... for the values.
    ///   - binds: the values, in order.
    ///   - doing: what the statement is for, in words, for the error (`"storing a payload"`).
    /// - Returns: every row of the result, read whole.
    /// - Throws: `PostgresError.server` with the server's message, `.connectionLost` when the connection broke, or
    ///   `.cannotConnect`.
    @discardableResult
    public func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), doing: String) throws
        -> [PostgresRow]
    {
        try result(sql, binds, doing: doing).rows
    }

    /// Runs one statement and returns how many rows it changed (INSERT, UPDATE, DELETE).
    @discardableResult
    public func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), doing: String) throws -> Int {
        try result(sql, binds, doing: doing).metadata.rows ?? 0
    }

    private func result(_ sql: String, _ binds: PostgresBindings, doing: String) throws -> PostgresQueryResult {
        precondition(!closed, "PostgresDatabase used after close()")
        do {
            return try PostgresDatabase.waitFor(
                connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger))
        } catch {
            throw PostgresError.from(error, database: location.description, doing: doing)
        }
    }

    /// The entries written at once after which `analyzeAfterBulkWrite` tells the planner of them.
    public static let bulkWriteEntries = 10_000

    /// After a writer stored `entries` rows at once (a sync, an import), tells PostgreSQL's planner what the entry
    /// tables hold now (`ANALYZE`), as a bulk load should: autovacuum does it within minutes, and until then the
    /// planner takes a table it never analyzed, or a session it has not seen, for a few rows, and the web view's reads
    /// of that session sort where they should seek. Under `bulkWriteEntries` it leaves that to autovacuum. A login
    /// that does not own the tables gets PostgreSQL's warning, not an error.
    public func analyzeAfterBulkWrite(entries: Int) throws {
        guard entries >= Self.bulkWriteEntries else { return }
        try execute("ANALYZE entries, sessions", doing: "updating the planner's statistics after the write")
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. Nothing is stored until
    /// the COMMIT returned: callers answer or move a cursor only after this returns.
    public func transaction<T>(doing: String, _ body: () throws -> T) throws -> T {
        try execute("BEGIN", doing: doing)
        let value: T
        do {
            value = try body()
        } catch {
            _ = try? execute("ROLLBACK", doing: doing)
            throw error
        }
        try execute("COMMIT", doing: doing)
        return value
    }

    // MARK: - Waiting

    /// The future's value, waited for on this thread. `EventLoopFuture.wait()` traps on any event-loop thread (the
    /// receiver's StoreThread is one); a semaphore has no such rule, and the future completes on the connection's
    /// own loop, which the caller never is.
    static func waitFor<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        precondition(!future.eventLoop.inEventLoop, "PostgresDatabase blocked its own event loop")
        let done = DispatchSemaphore(value: 0)
        let box = NIOLockedValueBox<Result<T, any Error>?>(nil)
        future.whenComplete { result in
            box.withLockedValue { $0 = result }
            done.signal()
        }
        done.wait()
        return try box.withLockedValue { $0! }.get()
    }
}

@available(*, unavailable)
extension PostgresDatabase: Sendable {}
