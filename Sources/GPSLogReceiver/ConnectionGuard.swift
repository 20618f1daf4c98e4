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
    /// From a request's header to the end of its body (16 MiB at most), counted while the server asks for more of it
    /// (not while it holds the body back because other batches take its memory budget).
    public var bodyTimeout: TimeAmount = .seconds(60)
    /// Between a response and the next request on a kept-alive connection.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// Connections open at once, from everyone.
    public var maxConnections = 256
    /// Connections open at once from one address: what one client may hold of `maxConnections`.
    public var maxConnectionsPerClient = 16
    /// How long a connection may wait for a request's header (or stay idle between requests) once the server is
    /// crowded (`crowdedAt` connections open): many addresses each holding their share of slow connections
    /// would otherwise fill `maxConnections` for `headerTimeout`, and a phone's post would find no room.
    public var crowdedHeaderTimeout: TimeAmount = .seconds(2)
    /// Three quarters of `maxConnections`.
    public var crowdedAt: Int { max(1, maxConnections * 3 / 4) }

    /// The default limits, as above.
    public init() {}
}

/// Counts the open connections, in all and per client address, across the server's event loops, and knows which
/// of them are waiting for a request (its header not complete, or idle after a response): when every slot is
/// taken, a new connection takes the slot of the one that has waited longest among those of the client holding the
/// most connections, so slow or idle connections cannot keep out a client that sends its request at once.
final class ConnectionRegistry: Sendable {
    /// One connection's place in the counts. It is given back once, by whoever ends it first: the connection closing,
    /// or a newer connection taking it. Its fields change only under the registry's lock.
    final class Slot: @unchecked Sendable {
        let client: String
        let channel: any Channel
        fileprivate var released = false
        /// Since when it waits for a request (nil while a request is read or answered).
        fileprivate var waitingSince: NIODeadline?

        init(client: String, channel: any Channel) {
            self.client = client
            self.channel = channel
        }
    }

    private struct Counts {
        var total = 0
        var byClient: [String: Int] = [:]
        var waiting: [ObjectIdentifier: Slot] = [:]

        mutating func release(_ slot: Slot) {
            guard !slot.released else { return }
            slot.released = true
            total -= 1
            let left = byClient[slot.client, default: 1] - 1
            byClient[slot.client] = left > 0 ? left : nil
            waiting[ObjectIdentifier(slot)] = nil
        }
    }

    let limits: ConnectionLimits
    private let counts = NIOLockedValueBox(Counts())

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Takes a slot for a new connection from `client`, waiting for its first request; nil when the client is at its
    /// limit, or the server is and no connection waits. A waiting connection whose slot is taken is closed.
    func open(client: String, channel: any Channel) -> Slot? {
        let (slot, evicted): (Slot?, Slot?) = counts.withLockedValue { c in
            guard c.byClient[client, default: 0] < limits.maxConnectionsPerClient else { return (nil, nil) }
            var evicted: Slot?
            if c.total >= limits.maxConnections {
                // Taken from the client that holds the most connections (a crowd's address holds its 16), the one
                // of its that waited longest: a phone's one connection, slow to send its header on a busy machine,
                // is not taken for a crowd's next one.
                let counts = c.byClient
                let most = c.waiting.values.map { counts[$0.client, default: 0] }.max()
                guard let most,
                    let oldest = c.waiting.values.filter({ counts[$0.client, default: 0] == most })
                        .min(by: { $0.waitingSince! < $1.waitingSince! })
                else {
                    return (nil, nil)
                }
                c.release(oldest)
                evicted = oldest
            }
            let slot = Slot(client: client, channel: channel)
            slot.waitingSince = .now()
            c.total += 1
            c.byClient[client, default: 0] += 1
            c.waiting[ObjectIdentifier(slot)] = slot
            return (slot, evicted)
        }
        evicted?.channel.close(promise: nil)
        return slot
    }

    /// Marks a connection as waiting for a request from now on, or (false) as busy with one.
    func setWaiting(_ slot: Slot, _ waiting: Bool) {
        counts.withLockedValue { c in
            guard !slot.released else { return }
            slot.waitingSince = waiting ? .now() : nil
            c.waiting[ObjectIdentifier(slot)] = waiting ? slot : nil
        }
    }

    func close(_ slot: Slot) { counts.withLockedValue { $0.release(slot) } }

    /// At least `limits.crowdedAt` connections are open.
    var isCrowded: Bool { counts.withLockedValue { $0.total >= limits.crowdedAt } }

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
    private var slot: ConnectionRegistry.Slot?
    private var phase = Phase.waitingForHeader
    private var deadline: Scheduled<Void>?
    /// The body's time left (`limits.bodyTimeout` at its start), and since when the server has been asking for more.
    private var bodyLeft = TimeAmount.zero
    private var bodyClock: NIODeadline?
    /// While waiting for a request: closes the connection if the server is crowded by then.
    private var crowdCheck: Scheduled<Void>?

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

    // The body's time counts only while the server asks for more of it: between a `read` the server passes on and
    // the bytes that answer it. While the server holds back (its memory budget is taken by other batches, and its
    // read buffer is full), the clock stops: the wait is the server's, not the client's. A client that trickles
    // its body is still timed whenever it is asked for more.
    func read(context: ChannelHandlerContext) {
        if phase == .readingBody && bodyClock == nil {
            bodyClock = .now()
            let loop = context.eventLoop.assumeIsolated()
            deadline = loop.scheduleTask(in: bodyLeft) { context.close(promise: nil) }
        }
        context.read()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if phase == .readingBody, let started = bodyClock {
            bodyLeft = bodyLeft - (.now() - started)
            bodyClock = nil
            deadline?.cancel()
            deadline = nil
            if bodyLeft <= .zero { context.close(promise: nil) }
        }
        context.fireChannelReadComplete()
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
        guard slot == nil else { return }
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard let slot = registry.open(client: address, channel: context.channel) else {
            context.close(promise: nil)
            return
        }
        self.slot = slot
        enter(.waitingForHeader, context)
    }

    private func enter(_ next: Phase, _ context: ChannelHandlerContext) {
        phase = next
        deadline?.cancel()
        deadline = nil
        crowdCheck?.cancel()
        crowdCheck = nil
        let limits = registry.limits
        let waiting = next == .waitingForHeader || next == .idle
        if let slot { registry.setWaiting(slot, waiting) }
        if waiting { scheduleCrowdCheck(context) }
        bodyClock = nil
        bodyLeft = limits.bodyTimeout
        let timeout: TimeAmount? =
            switch next {
            case .waitingForHeader: limits.headerTimeout
            case .readingBody: nil  // timed while the server asks for the body (`read`)
            case .responding: nil
            case .idle: limits.idleTimeout
            }
        guard let timeout else { return }
        let loop = context.eventLoop.assumeIsolated()
        deadline = loop.scheduleTask(in: timeout) { context.close(promise: nil) }
    }

    /// Every `crowdedHeaderTimeout` while waiting for a request: a crowded server closes the connection.
    private func scheduleCrowdCheck(_ context: ChannelHandlerContext) {
        let loop = context.eventLoop.assumeIsolated()
        crowdCheck = loop.scheduleTask(in: registry.limits.crowdedHeaderTimeout) { [self] in
            if registry.isCrowded {
                context.close(promise: nil)
            } else {
                scheduleCrowdCheck(context)
            }
        }
    }

    private func release() {
        deadline?.cancel()
        deadline = nil
        crowdCheck?.cancel()
        crowdCheck = nil
        if let slot { registry.close(slot) }
        slot = nil
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
