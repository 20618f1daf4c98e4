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
    public enum Answer: CaseIterable, Sendable { case ok, serverError, drop, garbage, resultError, slow }

    public struct Batch: Sendable {
        public var uri: String
        public var timestamps: [String]
        public var hasCurrent: Bool
        public var authorization: String?
        public var answer: Answer
        /// Each location's `device_id` and `unique_id` ("" when it has none).
        public var deviceIDs: [String] = []
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

    public init(
        failureRate: Double, slowDelay: TimeAmount = .milliseconds(1500), delay: TimeAmount = .zero,
        seed: UInt64 = 0x5EED_F1A4
    ) {
        self.failureRate = failureRate
        self.slowDelay = slowDelay
        self.delay = delay
        rng = SplitMix64(seed: seed)
    }

    public var url: String { "http://127.0.0.1:\(channel?.localAddress?.port ?? 0)/api/overland" }
    public var log: [Batch] { lock.withLock { batches } }
    /// Timestamps of every location received, with repeats.
    public var received: [String] { log.flatMap(\.timestamps) }
    /// Timestamps of the locations in batches answered ok.
    public var confirmed: [String] { log.filter { $0.answer == .ok }.flatMap(\.timestamps) }

    public func start() async throws {
        channel = try await startLoopbackHTTPServer { Handler(server: self) }
    }

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
