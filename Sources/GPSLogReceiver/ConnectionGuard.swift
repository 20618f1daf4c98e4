// SPDX-License-Identifier: MIT
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// How long a client may take and how many connections it may hold. A phone posts a batch and goes: these bounds
/// cost it nothing, and keep a client that trickles one header byte a second, or opens hundreds of connections,
/// from holding the receiver.
public struct ConnectionLimits: Sendable {
    /// From the first byte of a request (or the connection's start) to its complete header.
    public var headerTimeout: TimeAmount = .seconds(10)
    /// From a request's header to the end of its body (16 MiB at most).
    public var bodyTimeout: TimeAmount = .seconds(60)
    /// Between a response and the next request on a kept-alive connection.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// Connections open at once, from everyone.
    public var maxConnections = 256
    /// Connections open at once from one address: what one client may hold of `maxConnections`.
    public var maxConnectionsPerClient = 16

    public init() {}
}

/// Counts the open connections, in all and per client address, across the server's event loops.
final class ConnectionRegistry: Sendable {
    let limits: ConnectionLimits
    private let counts = NIOLockedValueBox((total: 0, byClient: [String: Int]()))

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Takes a slot for `client`, or says no when the server or the client is at its limit.
    func open(client: String) -> Bool {
        counts.withLockedValue { c in
            guard c.total < limits.maxConnections, c.byClient[client, default: 0] < limits.maxConnectionsPerClient
            else { return false }
            c.total += 1
            c.byClient[client, default: 0] += 1
            return true
        }
    }

    func close(client: String) {
        counts.withLockedValue { c in
            c.total -= 1
            let left = c.byClient[client, default: 1] - 1
            c.byClient[client] = left > 0 ? left : nil
        }
    }

    /// Connections open now (tests).
    var open: Int { counts.withLockedValue { $0.total } }
}

/// Enforces `ConnectionLimits` on one connection: its slot in the registry, and a deadline for each phase of a
/// request. Written by hand because Hummingbird's idle timeout cannot tell a header that trickles in from an idle
/// connection: it sees requests only once their header is complete. A `ByteWatcher` at the front of the pipeline
/// tells it when a request's first bytes arrive.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase { case waitingForHeader, readingBody, responding, idle }

    private let registry: ConnectionRegistry
    private var client: String?
    private var phase = Phase.waitingForHeader
    private var deadline: Scheduled<Void>?

    init(registry: ConnectionRegistry) { self.registry = registry }

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.pipeline.syncOperations.addHandler(ByteWatcher(owner: self), position: .first)
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: enter(.readingBody, context)
        case .body: break
        case .end: enter(.responding, context)  // our own work has no deadline: the database may be busy
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { enter(.idle, context) }
        context.write(data, promise: promise)
    }

    /// The first bytes after a response: a new request has begun, and its header must follow in time.
    fileprivate func bytesArrived(_ context: ChannelHandlerContext) {
        if phase == .idle { enter(.waitingForHeader, context) }
    }

    private func start(_ context: ChannelHandlerContext) {
        guard client == nil else { return }
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard registry.open(client: address) else {
            context.close(promise: nil)
            return
        }
        client = address
        enter(.waitingForHeader, context)
    }

    private func enter(_ next: Phase, _ context: ChannelHandlerContext) {
        phase = next
        deadline?.cancel()
        deadline = nil
        let limits = registry.limits
        let timeout: TimeAmount? =
            switch next {
            case .waitingForHeader: limits.headerTimeout
            case .readingBody: limits.bodyTimeout
            case .responding: nil
            case .idle: limits.idleTimeout
            }
        guard let timeout else { return }
        let loop = context.eventLoop.assumeIsolated()
        deadline = loop.scheduleTask(in: timeout) { context.close(promise: nil) }
    }

    private func release() {
        deadline?.cancel()
        deadline = nil
        if let client { registry.close(client: client) }
        client = nil
    }
}

/// Sits before the HTTP decoder and tells its `ConnectionGuard` when bytes arrive.
private final class ByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    // Weak: the guard owns nothing of this handler; both go with the pipeline.
    private weak var owner: ConnectionGuard?

    init(owner: ConnectionGuard) { self.owner = owner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.bytesArrived(context)
        context.fireChannelRead(data)
    }
}
