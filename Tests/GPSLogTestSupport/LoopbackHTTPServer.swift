// SPDX-License-Identifier: MIT
import NIOCore
import NIOHTTP1
import NIOPosix

/// Binds an HTTP/1.1 server on 127.0.0.1, on a port the kernel picks, with a fresh `handler` per connection:
/// the test servers (a geocoder, a flaky Overland receiver) differ only in what they answer.
public func startLoopbackHTTPServer(
    handler: @escaping @Sendable () -> any ChannelInboundHandler & Sendable
) async throws -> any Channel {
    try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(handler()) }
        }
        .bind(host: "127.0.0.1", port: 0).get()
}
