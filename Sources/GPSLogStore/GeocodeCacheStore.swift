// SPDX-License-Identifier: MIT
import GPSLogModel

/// The geocode cache and each provider's pacing, as `ReadyAddresses` and `GeocodeWorker` keep them: the answers by
/// cell, the spacing of requests shared by every process, a provider's pause and block. `Store` keeps them.
public protocol GeocodeCacheStore: AnyObject {
    /// The cached answer for a cell (nil: never asked, or a "none" that expired at `now`).
    func cachedGeocode(provider: String, language: String, cell: String, now: Int64) throws -> CachedGeocode?
    /// Keeps a provider's answer for a cell (`expiresAt`: when a "none" may be asked again; nil never).
    func rememberGeocode(
        _ answer: CachedGeocode, provider: String, language: String, cell: String, latitude: Double, longitude: Double,
        fetchedAt: Int64, expiresAt: Int64?) throws
    /// A provider's pacing: its last request, its pause and backoff, its block.
    func geocodeProviderState(_ provider: String) throws -> GeocodeProviderState
    /// Takes the next request slot of a provider `spacing` ms after the last; returns how long to wait for it (ms).
    func claimGeocodeSlot(provider: String, spacing: Int64, now: () -> Int64) throws -> Int64
    /// Notes an answer's time, so the next request keeps its spacing from it.
    func noteGeocodeAnswer(provider: String, at time: Int64, spacing: Int64, period: Int64) throws
    /// Pauses a provider (HTTP 429/503) for the pause `nextPause` makes of the previous backoff; returns its end.
    func pauseGeocodeProvider(_ provider: String, nextPause: (Int64?) -> (backoff: Int64, until: Int64)) throws
        -> Int64
    /// Ends a provider's backoff (it answered).
    func clearGeocodeBackoff(_ provider: String) throws
    /// Blocks a provider (HTTP 403) until `gpslog geocode --reset`.
    func blockGeocodeProvider(_ provider: String, message: String) throws
    /// Forgets a provider's pause and block.
    func resetGeocodeProvider(_ provider: String) throws
}

/// What `GeocodeWorker` reads and writes: the cache, the rows without an address, and the addresses it finds.
public protocol AddressStore: GeocodeCacheStore {
    /// Rows without an address (of `sessions`, or of all when nil), streamed.
    func forEachEntryWithoutAddress(sessions: [String]?, _ body: (AddresslessEntry) throws -> Void) throws
    /// Gives the rows `keys` an address; returns how many rows changed.
    @discardableResult
    func setAddress(_ address: String, entryKeys keys: [Int64]) throws -> Int
    /// Runs `body` in one transaction.
    func write<T>(_ body: () throws -> T) throws -> T
}

extension Store: AddressStore {}
