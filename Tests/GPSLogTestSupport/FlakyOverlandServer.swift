// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import NIOCore
import NIOHTTP1

/// An Overland receiver on 127.0.0.1 (a random port) that misbehaves as real servers and networks do: HTTP 500,
/// dropped connections, garbage bodies, `{"result":"error"}`, and answers slower than the client waits. Only a
/// batch answered `{"result":"ok"}` counts as confirmed; everything it received is logged, so a test can tell
/// what arrived, what arrived twice, and what was confirmed.
public final class FlakyOverlandServer: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    /// How a request was answered: `{"result":"ok"}` (`ok`, and `slow` after `slowDelay`), HTTP 500, the connection
    /// dropped, an HTML body, or `{"result":"error"}`.
    public enum Answer: CaseIterable, Sendable { case ok, serverError, drop, garbage, resultError, slow }

    /// One request as it arrived, and how it was answered.
    public struct Batch: Sendable {
        /// The request's URI: path and query.
        public var uri: String
        /// Each location's `timestamp`, in order.
        public var timestamps: [String]
        /// Whether the body has Overland's `current` (the device's last known location).
        public var hasCurrent: Bool
        /// The `Authorization` header, when there was one.
        public var authorization: String?
        /// How the request was answered.
        public var answer: Answer
        /// Each location's `device_id` ("" when it has none).
        public var deviceIDs: [String] = []
        /// Each location's `unique_id` ("" when it has none).
        public var uniqueIDs: [String] = []
    }

    private let lock = NSLock()
    /// Seeded: a failing run misbehaves the same way when run again.
    private var rng: SplitMix64
    private var batches: [Batch] = []
    /// The chance that a request is answered with something other than ok.
    public let failureRate: Double
    /// How long a "slow" answer takes (longer than the client's timeout in the tests).
    public let slowDelay: TimeAmount
    /// A delay before every answer (to catch a client mid-upload).
    public let delay: TimeAmount
    private var channel: Channel?

    /// A server that fails a `failureRate` (0 to 1) of the requests, in ways drawn from `seed`. Each answer waits
    /// `delay` (none by default), a slow one `slowDelay` instead (1.5 s by default). It listens once `start()` returns.
    public init(
        failureRate: Double, slowDelay: TimeAmount = .milliseconds(1500), delay: TimeAmount = .zero,
        seed: UInt64 = 0x5EED_F1A4
    ) {
        self.failureRate = failureRate
        self.slowDelay = slowDelay
        self.delay = delay
        rng = SplitMix64(seed: seed)
    }

    /// The endpoint to post to, `http://127.0.0.1:PORT/api/overland`, once started.
    public var url: String { "http://127.0.0.1:\(channel?.localAddress?.port ?? 0)/api/overland" }
    /// Every request received so far, in order.
    public var log: [Batch] { lock.withLock { batches } }
    /// Timestamps of every location received, with repeats.
    public var received: [String] { log.flatMap(\.timestamps) }
    /// Timestamps of the locations in batches answered ok.
    public var confirmed: [String] { log.filter { $0.answer == .ok }.flatMap(\.timestamps) }

    /// Starts listening on a random loopback port.
    public func start() async throws {
        channel = try await startLoopbackHTTPServer { Handler(server: self) }
    }

    /// Stops listening.
    public func stop() async { try? await channel?.close() }

    /// Logs one request and decides its answer.
    func decide(uri: String, body: ByteBuffer, authorization: String?) -> Answer {
        let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        let features = object?["locations"] as? [[String: Any]] ?? []
        let properties = features.map { $0["properties"] as? [String: Any] ?? [:] }
        let stamps = properties.compactMap { $0["timestamp"] as? String }
        return lock.withLock {
            let answer: Answer
            if object == nil || stamps.isEmpty {
                answer = .serverError
            } else if Double.random(in: 0..<1, using: &rng) < failureRate {
                answer = Answer.allCases.filter { $0 != .ok }.randomElement(using: &rng)!
            } else {
                answer = .ok
            }
            batches.append(
                Batch(
                    uri: uri, timestamps: stamps, hasCurrent: object?["current"] != nil, authorization: authorization,
                    answer: answer, deviceIDs: properties.map { $0["device_id"] as? String ?? "" },
                    uniqueIDs: properties.map { $0["unique_id"] as? String ?? "" }))
            return answer
        }
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: FlakyOverlandServer
        var head: HTTPRequestHead?
        var body = ByteBuffer()
        init(server: FlakyOverlandServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h):
                head = h
                body.clear()
            case .body(var chunk): body.writeBuffer(&chunk)
            case .end:
                let answer = server.decide(
                    uri: head?.uri ?? "", body: body, authorization: head?.headers.first(name: "Authorization"))
                let loop = context.eventLoop
                let ctx = NIOLoopBound(context, eventLoop: loop)
                let respond: @Sendable () -> Void = { [self] in
                    let context = ctx.value
                    switch answer {
                    case .ok, .slow: self.reply(context, 200, #"{"result":"ok"}"#)
                    case .serverError: self.reply(context, 500, "Internal Server Error")
                    case .garbage: self.reply(context, 200, "<html>proxy says hi</html>")
                    case .resultError: self.reply(context, 200, #"{"result":"error","error":"database is locked"}"#)
                    case .drop: context.close(promise: nil)
                    }
                }
                let wait = answer == .slow ? server.slowDelay : server.delay
                if wait == .zero { respond() } else { loop.scheduleTask(in: wait) { respond() } }
            }
        }

        func reply(_ context: ChannelHandlerContext, _ status: Int, _ text: String) {
            var headers = HTTPHeaders([
                ("Content-Type", "application/json"), ("Content-Length", String(text.utf8.count)),
            ])
            headers.add(name: "Connection", value: "close")
            context.write(
                wrapOutboundOut(
                    .head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
        }
    }
}
