// SPDX-License-Identifier: MIT

/// What a geocoding run did (or, summed, what the geocoder inside a recording has done): the closing summary of
/// `gpslog geocode` and the Addresses line of `gpslog status`.
public struct GeocodeReport: Sendable, Codable, Equatable {
    /// The provider's cache key (`nominatim:URL`, `regions:NAME`).
    public var provider: String
    /// Requests sent to the provider (lookups, for an offline one).
    public var requests = 0
    /// Cells (or marks) answered from the cache.
    public var cacheHits = 0
    /// "No address here" answers, fresh or cached.
    public var negatives = 0
    /// Requests that failed (network, timeouts, 5xx): their entries stay pending.
    public var failures = 0
    /// Distinct cells (and marks) that needed an address.
    public var cells = 0
    /// Entries that got an address.
    public var addressed = 0
    /// When the provider is paused after a 429/503 (ISO 8601), or nil.
    public var pausedUntil: String?
    /// Why the provider is blocked (after a 403), or nil.
    public var blocked: String?
    /// An empty report for `provider` (its cache key).
    public init(provider: String) { self.provider = provider }

    /// Adds another run's counts (cells are counted by the caller, who knows which it has seen).
    public mutating func add(_ run: GeocodeReport) {
        requests += run.requests
        cacheHits += run.cacheHits
        negatives += run.negatives
        failures += run.failures
        addressed += run.addressed
        pausedUntil = run.pausedUntil
        blocked = run.blocked
    }

    /// Requests per distinct cell that was not cached (1.0 is the minimum possible).
    public var requestsPerUncachedCell: Double? {
        let uncached = cells - cacheHits
        return uncached > 0 ? Double(requests) / Double(uncached) : nil
    }
}
