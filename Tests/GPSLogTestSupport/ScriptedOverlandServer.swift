// SPDX-License-Identifier: MIT
import Foundation
import NIOCore
import NIOHTTP1

/// An Overland receiver on 127.0.0.1 (a random port) that keeps every request whole (URI, headers, body) and
/// answers each from a script: `{"result":"ok"}` unless the script returns another answer for that request (a
/// `set`, an error). What tests of records, logging modes and server-sent settings read back.
public final class ScriptedOverlandServer: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    /// One request as it arrived.
    public struct Request: Sendable {
        /// The request's URI: path and query.
        public var uri: String
        /// The `Authorization` header, when there was one.
        public var authorization: String?
        /// The body, byte for byte.
        public var body: Data
        /// The body as JSON (an object), or nil.
        public var json: [String: Any]? {
            try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        }
        /// The Features of `locations` (locations and records).
        public var features: [[String: Any]] { json?["locations"] as? [[String: Any]] ?? [] }
        /// Features that are locations (no `action`, no `type: trip`).
        public var locations: [[String: Any]] {
            features.filter { props($0)["action"] == nil && props($0)["type"] as? String != "trip" }
        }
        /// Features that are records (`action`).
        public var records: [[String: Any]] { features.filter { props($0)["action"] != nil } }
    }

    private let lock = NSLock()
    private var requests: [Request] = []
    /// Answer for the request at this index (0-based); nil: `{"result":"ok"}`.
    private let script: @Sendable (Int, Request) -> String?
    private var channel: Channel?

    /// A server that answers the request at each index (0-based) with what `script` returns; nil: `{"result":"ok"}`.
    /// It listens once `start()` returns.
    public init(script: @escaping @Sendable (Int, Request) -> String? = { _, _ in nil }) {
        self.script = script
    }

    /// The endpoint to post to, `http://127.0.0.1:PORT/api/overland`, once started.
    public var url: String { "http://127.0.0.1:\(channel?.localAddress?.port ?? 0)/api/overland" }
    /// Every request received so far, in order.
    public var log: [Request] { lock.withLock { requests } }

    /// Starts listening on a random loopback port.
    public func start() async throws {
        channel = try await startLoopbackHTTPServer { Handler(server: self) }
    }

    /// Stops listening.
    public func stop() async { try? await channel?.close() }

    func answer(_ request: Request) -> String {
        let index = lock.withLock {
            requests.append(request)
            return requests.count - 1
        }
        return script(index, request) ?? #"{"result":"ok"}"#
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: ScriptedOverlandServer
        var head: HTTPRequestHead?
        var body = ByteBuffer()
        init(server: ScriptedOverlandServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h):
                head = h
                body.clear()
            case .body(var chunk): body.writeBuffer(&chunk)
            case .end:
                let text = server.answer(
                    Request(
                        uri: head?.uri ?? "", authorization: head?.headers.first(name: "Authorization"),
                        body: Data(body.readableBytesView)))
                var headers = HTTPHeaders([
                    ("Content-Type", "application/json"), ("Content-Length", String(text.utf8.count)),
                    ("Connection", "close"),
                ])
                headers.add(name: "Server", value: "scripted")
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                    promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
            }
        }
    }
}

/// A Feature's properties.
public func props(_ feature: [String: Any]) -> [String: Any] { feature["properties"] as? [String: Any] ?? [:] }
