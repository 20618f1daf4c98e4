// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogSystem
import Logging
import NIOCore
import NIOPosix

/// Serves `mark`, `status` and `stop` on a Unix socket (mode 0600): one JSON request line, one JSON answer line.
public final class ControlServer: Sendable {
    /// The socket file's path, as given to `start`.
    public let path: String
    private let channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    /// Accepts connections and serves each; it ends when the listening channel is closed and every connection
    /// being served has been answered.
    private let serving: Task<Void, Never>
    private let accepted: AcceptedConnections

    private init(
        path: String, channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>,
        serving: Task<Void, Never>, accepted: AcceptedConnections
    ) {
        self.path = path
        self.channel = channel
        self.serving = serving
        self.accepted = accepted
    }

    /// Binds the socket and starts answering with `handler` in the background.
    public static func start(
        path: String, logger: Logger, handler: @escaping @Sendable (ControlRequest) async -> ControlResponse
    ) async throws -> ControlServer {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The socket file is created by bind(2) with the umask's mode: narrow the umask around it so it is 0600
        // from the first moment.
        let oldMask = umask(0o177)
        defer { umask(oldMask) }
        let accepted = AcceptedConnections()
        let channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { child in
                    child.eventLoop.makeCompletedFuture {
                        accepted.hold(try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child))
                    }
                }
        } catch {
            throw RecordingError.socket(path: path, reason: describeForPeople(error))
        }
        let serving = Task {
            do {
                try await channel.executeThenClose { inbound in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await connection in inbound {
                            accepted.release(connection)
                            group.addTask { await serve(connection, handler: handler, logger: logger) }
                        }
                    }
                }
            } catch {
                logger.debug("control socket closed: \(describeForPeople(error))")
            }
        }
        return ControlServer(path: path, channel: channel, serving: serving, accepted: accepted)
    }

    private static func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        handler: @Sendable (ControlRequest) async -> ControlResponse,
        logger: Logger
    ) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var buffer = ByteBuffer()
                for try await chunk in inbound {
                    buffer.writeImmutableBuffer(chunk)
                    let response: ControlResponse
                    switch ControlRequest.read(buffer.readableBytesView) {
                    case .incomplete: continue
                    case .tooLong: return
                    case .request(let request): response = await handler(request)
                    case .refused(let reason): response = ControlResponse(ok: false, error: reason)
                    }
                    var out = try JSONEncoder().encode(response)
                    out.append(UInt8(ascii: "\n"))
                    try await outbound.write(ByteBuffer(bytes: out))
                    return
                }
            }
        } catch {
            logger.debug("control connection failed: \(describeForPeople(error))")
        }
    }

    /// Stops listening, lets the connections being served send their answers (the answer to `stop` itself must
    /// reach `gpslog stop` before this process exits), waiting at most 2 s for a client that sends nothing, and
    /// removes the socket file.
    public func close() async {
        try? await channel.channel.close()
        let serving = serving
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await serving.value }
            group.addTask { try? await Task.sleep(for: .seconds(2)) }
            await group.next()
            // Waiting on `serving.value` does not end when the group is cancelled: the serving itself is, so that a
            // client that keeps its connection open and sends nothing cannot hold the recorder's exit.
            serving.cancel()
            group.cancelAll()
        }
        await accepted.closeUnserved()
        unlink(path)
    }
}

/// The connections accepted but not yet taken by the serving loop.
///
/// SwiftNIO traps ("Deinited NIOAsyncWriter without calling finish()") when a connection it accepted is dropped
/// before `executeThenClose` ran on it, and the listening channel drops the ones still queued when it closes
/// (swift-nio issue 2813). A `stop` sent while the recorder was stopped (SIGSTOP) arrives with the connections of the
/// clients that gave up on it, so closing on `stop` crashed the recorder. Each connection is held here from its
/// accept until the loop takes it; the ones left at close are closed here, and any accepted later stay held until the
/// process ends.
private final class AcceptedConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [ObjectIdentifier: NIOAsyncChannel<ByteBuffer, ByteBuffer>] = [:]

    func hold(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        lock.withLock { held[ObjectIdentifier(connection.channel)] = connection }
        return connection
    }

    func release(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) {
        _ = lock.withLock { held.removeValue(forKey: ObjectIdentifier(connection.channel)) }
    }

    /// Closes the connections never served (their clients see the socket close) and keeps holding them.
    func closeUnserved() async {
        let unserved = lock.withLock { Array(held.values) }
        for connection in unserved {
            try? await connection.executeThenClose { _, _ in }
        }
    }
}

/// Talks to a running recorder over its control socket.
public enum ControlClient {
    /// How long a recorder may take to answer before the client looks at it. It answers from memory in
    /// milliseconds; one that has not answered by then is stopped (SIGSTOP, Ctrl-Z), stuck, or starved of CPU on a
    /// busy machine, and `status`, `mark` and `stop` must tell these apart rather than hang or give up on a slow one.
    public static let defaultTimeout: Duration = .seconds(5)
    /// The longest a client waits for a recorder that keeps getting on but has not answered.
    public static let longestWait: Duration = .seconds(120)

    /// Sends one request and waits for the answer: `timeout` at first, then `timeout` more each time the recorder's
    /// process shows it got on (it used CPU time or waits for a CPU), up to `longestWait`.
    /// - Throws: `RecordingError.notRecording` when nothing listens on the socket, `RecordingError.notAnswering`
    ///   when the recorder is stopped, or did not get on during `timeout`, or did not answer within `longestWait`.
    public static func send(
        _ request: ControlRequest, socketPath: String, database: String, timeout: Duration = defaultTimeout
    ) async throws -> ControlResponse {
        guard FileManager.default.fileExists(atPath: socketPath) else {
            throw RecordingError.notRecording(database: database)
        }
        let payload = try JSONEncoder().encode(request) + [UInt8(ascii: "\n")]
        let client = Connection()
        let pid = RecordingLock.holderPID(database: database)
        let outcome: Outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                .answer(
                    try await exchange(
                        payload, socketPath: socketPath, database: database, client: client,
                        timeout: longestWait))
            }
            group.addTask { try await watch(pid: pid, database: database, slice: timeout) }
            defer { group.cancelAll() }
            let first = try await group.next() ?? .gaveUp(waited: timeout, stopped: false)
            // Closing the channel ends the exchange still waiting for an answer that will not come.
            if case .gaveUp = first { client.close() }
            return first
        }
        switch outcome {
        case .gaveUp(let waited, let stopped):
            throw RecordingError.notAnswering(
                database: database, pid: pid, seconds: waited.wholeSeconds, stopped: stopped)
        case .answer(let answer):
            guard let response = try? JSONDecoder().decode(ControlResponse.self, from: answer) else {
                throw RecordingError.socket(path: socketPath, reason: "the recorder sent an answer that is not JSON")
            }
            return response
        }
    }

    private enum Outcome: Sendable {
        case answer(Data)
        case gaveUp(waited: Duration, stopped: Bool)
    }

    /// Waits in slices of `slice` while the recorder's process gets on; returns when it is stopped, did not get on
    /// during a whole slice, or `longestWait` is over. Without a pid or `/proc` to look at, one slice is all. A
    /// slice in which another process held the database's write lock counts as getting on: the recorder waits for
    /// that lock (an import or a `delete` writing), asleep, and answers once it has it.
    private static func watch(pid: Int32?, database: String, slice: Duration) async throws -> Outcome {
        var waited: Duration = .zero
        var last = pid.flatMap(ProcessActivity.of)
        while true {
            try await Task.sleep(for: slice)
            waited += slice
            guard let before = last, let pid, let now = ProcessActivity.of(pid: pid) else {
                return .gaveUp(waited: waited, stopped: false)
            }
            if now.isStopped { return .gaveUp(waited: waited, stopped: true) }
            if waited >= longestWait { return .gaveUp(waited: waited, stopped: false) }
            if !before.progressed(to: now) && !Store.writeLockIsHeld(path: database) {
                return .gaveUp(waited: waited, stopped: false)
            }
            last = now
        }
    }

    /// Connects, sends `payload` and reads up to the first newline.
    private static func exchange(
        _ payload: Data, socketPath: String, database: String, client: Connection, timeout: Duration
    ) async throws -> Data {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            // A connect still pending when the time is up cannot be closed from outside: it gives up by itself.
            let (seconds, attoseconds) = timeout.components
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            // A socket file left by a killed recorder: nobody listens.
            throw RecordingError.notRecording(database: database)
        }
        client.set(channel.channel)
        let answer: Data
        do {
            answer = try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(bytes: payload))
                var buffer = ByteBuffer()
                for try await chunk in inbound {
                    buffer.writeImmutableBuffer(chunk)
                    if buffer.readableBytesView.contains(UInt8(ascii: "\n")) { break }
                }
                return Data(buffer.readableBytesView)
            }
        } catch is IOError {
            // A reset or a broken pipe: the recorder's end went away mid-request (killed, or it ended).
            throw RecordingError.endedBeforeAnswering(database: database)
        } catch is ChannelError {
            throw RecordingError.endedBeforeAnswering(database: database)
        }
        // The connection ended before a whole line: the recorder ended before it answered.
        guard answer.contains(UInt8(ascii: "\n")) else {
            throw RecordingError.endedBeforeAnswering(database: database)
        }
        return answer
    }

    /// The client's channel, for closing it from the timeout (set once connected; closed at once if the timeout
    /// came first).
    private final class Connection: @unchecked Sendable {
        // @unchecked: `channel` and `closed` are guarded by `lock`.
        private let lock = NSLock()
        private var channel: (any Channel)?
        private var closed = false

        func set(_ channel: any Channel) {
            let close = lock.withLock {
                self.channel = channel
                return closed
            }
            if close { channel.close(promise: nil) }
        }

        func close() {
            let channel = lock.withLock {
                closed = true
                return self.channel
            }
            channel?.close(promise: nil)
        }
    }
}

extension Duration {
    /// The whole seconds of a duration, for messages.
    fileprivate var wholeSeconds: Int64 { components.seconds }
}
