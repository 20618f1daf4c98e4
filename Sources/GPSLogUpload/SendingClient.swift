// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation

/// The HTTP client of one sender (a recording's live sending, one `gpslog upload`), renewed after a network failure.
///
/// Why not AsyncHTTPClient's shared client: its pool retries a refused connection until the request's deadline, so
/// each attempt at a server that is down took the whole 30 s timeout, a send of three attempts 90 s, and `stop`
/// waited for it. Here a refused connection fails the attempt at once (`retryConnectionEstablishment` off), and
/// the attempt after a failure gets a fresh pool: nothing of the failure (a dead kept-alive connection, a pool's
/// wait before it connects again) outlives it, so a server that comes back is reached at the next attempt.
/// While the server answers, the client and its kept-alive connection stay.
public final class SendingClient: @unchecked Sendable {
    private let lock = NSLock()
    private var client: HTTPClient
    private var closed = false

    /// A client for one sender; `shutdown()` it when the sender ends.
    public init() { client = Self.make() }

    /// The client for the next request.
    var current: HTTPClient { lock.withLock { client } }

    /// After a request on `failed` failed on the network: the next request gets a fresh client, and `failed` is shut
    /// down in the background (its request has ended: one request at a time per sender).
    func renew(after failed: HTTPClient) {
        let old: HTTPClient? = lock.withLock {
            guard client === failed, !closed else { return nil }
            client = Self.make()
            return failed
        }
        old?.shutdown { _ in }
    }

    // A sender that ends without `shutdown()` (a recording that failed) still lets go of its connections; and
    // AsyncHTTPClient stops a debug build whose client was never shut down.
    deinit { if !closed { client.shutdown { _ in } } }

    /// Shuts the client down; requests after it fail.
    public func shutdown() async {
        let last: HTTPClient? = lock.withLock {
            guard !closed else { return nil }
            closed = true
            return client
        }
        try? await last?.shutdown()
    }

    private static func make() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        // A request's deadline ends when the answer's header arrives: a server that then goes silent mid-body is cut
        // by the read timeout (the shared client's is 90 s), not waited for by `stop` for ever.
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
