// SPDX-License-Identifier: MIT
import Foundation

/// What a provider said about a point.
public enum GeocodeAnswer: Sendable, Equatable {
    /// An address (one line).
    case address(String)
    /// "No address here" (the ocean, no coverage): a real answer, cached like one.
    case none
}

/// Why a lookup failed; the worker decides what to do next.
public enum GeocodeFailure: Error, Equatable, LocalizedError {
    /// HTTP 429 or 503: the provider asks us to slow down. `retryAfter` in seconds when it said one above zero.
    case rateLimited(status: Int, retryAfter: Double?)
    /// HTTP 403: blocked, or the User-Agent was refused.
    case forbidden(message: String)
    /// A timeout, a network error, a 5xx, a body that is not the provider's JSON: try again later.
    case transient(String)
    /// A 4xx that retrying will not fix.
    case rejected(status: Int, message: String)
    /// The provider cannot be set up (a file it cannot read, a bad URL or option): nothing was asked of anyone.
    case setup(String)

    /// The failure in one line for logs and summaries: the HTTP status, when there is one, and the message.
    public var errorDescription: String? {
        switch self {
        case .rateLimited(let status, let retryAfter):
            "HTTP \(status): rate limited\(retryAfter.map { " (Retry-After \($0) s)" } ?? "")"
        case .forbidden(let message): "HTTP 403: \(message)"
        case .transient(let message): message
        case .rejected(let status, let message): "HTTP \(status): \(message)"
        case .setup(let message): message
        }
    }
}

/// A reverse geocoder: a point in, an address (or "none") out.
public protocol ReverseGeocoder: Sendable {
    /// Identifies the provider in the cache and the rate-limit state (`nominatim:https://host`, `regions:<name>`).
    var cacheKey: String { get }
    /// True for providers on the network, which get the rate limiter; offline ones answer at once.
    var isNetwork: Bool { get }
    /// Looks a point up.
    func lookup(latitude: Double, longitude: Double, language: String) async throws -> GeocodeAnswer
}

/// A provider that answers from what it holds (a file read at start-up), never from the network: it answers at once,
/// on the caller's thread. The recorder asks it for each row as it stores it, so the address is in the row's own
/// INSERT instead of a later UPDATE that writes the row's pages again (Benchmarks/README.md, "The SD card").
public protocol OfflineGeocoder: ReverseGeocoder {
    /// Looks a point up at once (quickly: the recorder waits for it).
    func answer(latitude: Double, longitude: Double, language: String) throws -> GeocodeAnswer
}

extension OfflineGeocoder {
    /// Offline: no rate limiter.
    public var isNetwork: Bool { false }

    /// The same answer as `answer(latitude:longitude:language:)`.
    public func lookup(latitude: Double, longitude: Double, language: String) async throws -> GeocodeAnswer {
        try answer(latitude: latitude, longitude: longitude, language: language)
    }
}
